# Project-wide warning flags, applied per target through infermark_warnings().
add_library(infermark_warnings INTERFACE)
target_compile_options(infermark_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wunused -Woverloaded-virtual -Wconversion -Wsign-conversion
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
if(INFERMARK_WERROR)
  target_compile_options(infermark_warnings INTERFACE -Werror)
endif()
if(INFERMARK_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# Declares a module library from the .cpp files in its folder.
function(infermark_module name)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  add_library(infermark_${name} STATIC ${sources})
  add_library(infermark::${name} ALIAS infermark_${name})
  target_include_directories(infermark_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(infermark_${name} PUBLIC ${ARG_DEPS} PRIVATE infermark_warnings)
  infermark_unity(infermark_${name})
endfunction()
