# Sanitized builds, each in a build folder of its own (every object is compiled differently):
# - ARDENT_SANITIZE: AddressSanitizer + UndefinedBehaviorSanitizer over everything (scripts/test
#   --asan runs the suite so); a report stops the program, so a test with one fails.
# - ARDENT_FUZZ: the libFuzzer targets of fuzz/ (scripts/fuzz). libFuzzer comes with clang only.
#   Every Ardent library is then also compiled with the fuzzer's coverage instrumentation, so a
#   target learns from the code it feeds.
option(ARDENT_SANITIZE "Build everything with ASan + UBSan (see scripts/test --asan)" OFF)
option(ARDENT_FUZZ "Build the libFuzzer targets in fuzz/ (needs clang; see scripts/fuzz)" OFF)
set(_ardent_sanitizers "")
# Tests' time limits are multiplied by this: a sanitized program runs several times slower (the
# absorbing-box validations, 2-4 minutes each in the plain build, passed their 600 s under ASan
# only when alone).
set(ARDENT_TEST_TIMEOUT_SCALE 1)
if(ARDENT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ARDENT_FUZZ needs clang++ as the C++ compiler (libFuzzer); got "
                        "${CMAKE_CXX_COMPILER_ID}. scripts/fuzz configures such a build.")
  endif()
  set(_ardent_sanitizers -fsanitize=fuzzer-no-link,address,undefined)
elseif(ARDENT_SANITIZE)
  set(_ardent_sanitizers -fsanitize=address,undefined)
  set(ARDENT_TEST_TIMEOUT_SCALE 5)
endif()
if(_ardent_sanitizers)
  if(ARDENT_CUDA_ENABLED)
    message(FATAL_ERROR "ARDENT_SANITIZE and ARDENT_FUZZ are CPU builds: add -DARDENT_CUDA=OFF")
  endif()
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:${_ardent_sanitizers}>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-fno-sanitize-recover=undefined>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-g>
                      # GCC's flow analysis sees through ASan's instrumentation badly: false
                      # "may be used uninitialized" inside std::function and std::regex (its
                      # manual warns of this); the plain build keeps the warning.
                      $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-maybe-uninitialized>)
  add_link_options(-fsanitize=address,undefined)
endif()
