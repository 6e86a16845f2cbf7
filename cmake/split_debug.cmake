# Shipped natives without their debug information (QUIVER_SPLIT_DEBUG, on in the wheel's and the jars'
# builds): after each link, a shipped library's DWARF moves to LIB.debug beside it, and the library
# keeps its symbol tables (stack traces name functions), a build id and a .gnu_debuglink naming the
# .debug file. zig's clang emits DWARF even in Release builds: the libraries are about 8 times larger
# with it. scripts/package_debuginfo.sh gathers the .debug files by build id for debuggers.
option(QUIVER_SPLIT_DEBUG "Split shipped libraries' debug information into LIB.debug files" OFF)
if(QUIVER_SPLIT_DEBUG)
  find_program(QUIVER_OBJCOPY NAMES objcopy REQUIRED)
endif()

function(quiver_split_debug target)
  if(NOT QUIVER_SPLIT_DEBUG)
    return()
  endif()
  target_link_options(${target} PRIVATE -Wl,--build-id=sha1)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${QUIVER_OBJCOPY} --only-keep-debug $<TARGET_FILE:${target}> $<TARGET_FILE:${target}>.debug
    COMMAND ${QUIVER_OBJCOPY} --strip-debug --add-gnu-debuglink=$<TARGET_FILE:${target}>.debug
            $<TARGET_FILE:${target}>
    VERBATIM)
endfunction()
