# Every dependency comes from a Debian 12 package (scripts/setup.sh installs them).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(CLI11 REQUIRED)

# Static libyaml, OpenSSL and C++ runtime: a command that runs for milliseconds spends a third of
# its time in the dynamic loader otherwise. Sanitizer builds (fuzzing) turn this off.
option(INFERMARK_STATIC_DEPS "Link libyaml, OpenSSL and the C++ runtime statically" ON)
if(INFERMARK_STATIC_DEPS)
  set(OPENSSL_USE_STATIC_LIBS TRUE)
  add_link_options(-static-libstdc++ -static-libgcc)
  # Not position-independent either: a PIE binary has the loader relocate its 440 KB of
  # .data.rel.ro at every start, ~110 copy-on-write page faults, about 1.5 ms on these virtual
  # machines: a tenth of a whole `matrix full-sweep`.
  include(CheckPIESupported)
  check_pie_supported()
  set(CMAKE_POSITION_INDEPENDENT_CODE OFF)
endif()
find_package(OpenSSL REQUIRED)
pkg_check_modules(YAML REQUIRED IMPORTED_TARGET yaml-0.1)
add_library(infermark_yaml INTERFACE)
target_include_directories(infermark_yaml SYSTEM INTERFACE ${YAML_INCLUDE_DIRS})
if(INFERMARK_STATIC_DEPS)
  find_library(YAML_STATIC_LIBRARY NAMES libyaml.a REQUIRED)
  target_link_libraries(infermark_yaml INTERFACE ${YAML_STATIC_LIBRARY})
else()
  target_link_libraries(infermark_yaml INTERFACE PkgConfig::YAML)
endif()
if(INFERMARK_TESTS)
  find_package(GTest REQUIRED)
  # Property tests (schedules, the scheduler) use rapidcheck where it is installed.
  find_package(rapidcheck QUIET)
endif()
if(INFERMARK_BENCH)
  find_package(benchmark REQUIRED)
endif()
find_package(Boost 1.74 REQUIRED)
pkg_check_modules(ONIG REQUIRED IMPORTED_TARGET oniguruma)
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
find_package(simdjson REQUIRED)
# xz-compressed trace corpora (agentic-coding rows).
pkg_check_modules(LZMA REQUIRED IMPORTED_TARGET liblzma)
# SQLite (the results store), static like libyaml so every command keeps its fast start.
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
add_library(infermark_sqlite3 INTERFACE)
target_include_directories(infermark_sqlite3 SYSTEM INTERFACE ${SQLITE3_INCLUDE_DIRS})
if(INFERMARK_STATIC_DEPS)
  find_library(SQLITE3_STATIC_LIBRARY NAMES libsqlite3.a REQUIRED)
  target_link_libraries(infermark_sqlite3 INTERFACE ${SQLITE3_STATIC_LIBRARY} Threads::Threads ${CMAKE_DL_LIBS} m)
else()
  target_link_libraries(infermark_sqlite3 INTERFACE PkgConfig::SQLITE3)
endif()
