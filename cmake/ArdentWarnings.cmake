# Warnings on for every Ardent target; -Werror only when asked so a newer compiler never breaks
# a user's build, while CI builds with ARDENT_WERROR=ON to keep the tree clean.
option(ARDENT_WERROR "Treat warnings as errors" OFF)
add_library(ardent_warnings INTERFACE)
target_compile_options(ardent_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
   -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
   -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough
   # GCC 12 reports false -Wrestrict overlaps inside std::string concatenation (GCC PR 105651).
   $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>>)
if(ARDENT_WERROR)
  target_compile_options(ardent_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
