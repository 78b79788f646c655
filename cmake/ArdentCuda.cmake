# CUDA is optional: AUTO enables it when a toolkit is found, ON requires it, OFF skips it.
# A build without CUDA is a complete CPU build. Device code targets sm_90 (H100/H200) plus PTX
# so newer GPUs can JIT it.
set(ARDENT_CUDA_ENABLED OFF)
if(NOT ARDENT_CUDA STREQUAL "OFF")
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Set before enable_language: afterwards CMake has filled in nvcc's own default (sm_75 for
    # CUDA 13), which the H100/H200 would only run through a PTX JIT of older code.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90-real 90-virtual CACHE STRING "CUDA architectures")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    # CMake 3.25 does not know nvcc's C++20 flag; nvcc has had it since CUDA 12.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(ARDENT_CUDA_ENABLED ON)
  elseif(ARDENT_CUDA STREQUAL "ON")
    message(FATAL_ERROR "ARDENT_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER)")
  endif()
endif()
