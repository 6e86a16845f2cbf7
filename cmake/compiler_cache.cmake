# Compiles through ccache where it is installed (scripts/install_deps.sh installs it): CI builds the
# same sources into seven trees (tests, Python extension, shipped natives, sdist, two sanitizers, CUDA)
# on every fresh clone, and the cache under ~/.cache/ccache makes all but the changed files hits.
# Hits across clones in different folders: paths under the source tree are hashed relative to it
# (CCACHE_BASEDIR), the working folder is left out of the hash and mapped out of the debug info. Seven
# trees' objects (two of them with debug information) can outgrow ccache's default 5 GB, which would
# evict the first tree's before CI's next run reaches it.
option(QUIVER_CCACHE "Compile through ccache when it is installed" ON)
if(QUIVER_CCACHE)
  find_program(QUIVER_CCACHE_PROGRAM ccache)
  if(QUIVER_CCACHE_PROGRAM)
    set(launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=20G
                 ${QUIVER_CCACHE_PROGRAM})
    set(CMAKE_C_COMPILER_LAUNCHER ${launcher})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${launcher})
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${launcher})
    add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-fdebug-prefix-map=${CMAKE_SOURCE_DIR}=.>)
    message(STATUS "ccache: ${QUIVER_CCACHE_PROGRAM}")
  endif()
endif()
