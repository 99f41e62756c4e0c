# Unity builds: each module's files compiled eight to a translation unit. 155 of the binary's 276
# files include nlohmann/json, and each paid again for parsing it and for compiling the same
# inline JSON code at -O2; eight to a unit, the store module took 31 CPU-seconds instead of 76.
#
# INFERMARK_UNITY: AUTO (default) is on unless a compiler launcher such as ccache is set (a cache
# already skips unchanged files, and a unity unit would recompile eight files for one edit); ON or
# OFF force it. src/'s modules and tests/' suites are built this way: benchmarks and the CUDA
# probe keep one unit per file. Files of one module (or suite) share a unit, so a helper in an
# anonymous namespace must not repeat a name another file of its module (or suite) defines.
set(INFERMARK_UNITY AUTO CACHE STRING "Compile each module's files eight to a translation unit (AUTO, ON, OFF)")
set_property(CACHE INFERMARK_UNITY PROPERTY STRINGS AUTO ON OFF)
if(INFERMARK_UNITY STREQUAL "AUTO")
  if(CMAKE_CXX_COMPILER_LAUNCHER)
    set(INFERMARK_UNITY_ON OFF)
  else()
    set(INFERMARK_UNITY_ON ON)
  endif()
else()
  set(INFERMARK_UNITY_ON ${INFERMARK_UNITY})
endif()

# Files per unit; 0 puts a whole module in one unit, which checks that no two files of a module
# clash (the units' grouping shifts as files come and go).
set(INFERMARK_UNITY_BATCH 8 CACHE STRING "Files per unity translation unit (0: a whole module)")

# Builds `target` as unity units when unity builds are on.
function(infermark_unity target)
  if(INFERMARK_UNITY_ON)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${INFERMARK_UNITY_BATCH})
    # GCC's subobject-linkage warning is for a class defined in a header that several files see;
    # a unity unit includes each .cpp once, which GCC cannot tell from a header.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
    endif()
  endif()
endfunction()
