# The CUDA backend (included from engine/CMakeLists.txt only when CMake found a CUDA compiler).
# Hopper (sm_90: H100, H200) and Blackwell (sm_100: B200, GB200) by default; each with PTX for newer parts.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90 100)
endif()
set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
if(CCACHE_PROGRAM)
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

# The kernels on their own: they need only fill.hpp and the CUDA headers. Kept apart from the host code
# so that nvcc never sees the JSON library's -isystem /usr/include, which breaks its #include_next <math.h>.
add_library(fleetcast_engine_kernels STATIC cuda/cuda_kernels.cu cuda/attention_kernels.cu cuda/attention_prefill_tc.cu
                                            cuda/rope_sampling_kernels.cu cuda/cuda_moe_kernels.cu
                                            cuda/model_step_kernels.cu cuda/grouped_linear_kernels.cu
                                            cuda/fp8_quant_kernels.cu)
target_include_directories(fleetcast_engine_kernels PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/include")
target_link_libraries(fleetcast_engine_kernels PUBLIC CUDA::cudart)
# Targets linked by the C++ compiler get CMake's -lcudadevrt -lcudart for these objects but not the folder
# they are in (CMake 3.25); say where.
target_link_directories(fleetcast_engine_kernels INTERFACE "${CUDAToolkit_LIBRARY_DIR}")
# The kernels are C++17 (CMake 3.25 knows no C++20 flag for nvcc); the host side is C++20 like the rest.
set_target_properties(fleetcast_engine_kernels PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                                                          CUDA_EXTENSIONS OFF)
target_compile_options(fleetcast_engine_kernels PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)

add_library(fleetcast_engine_cuda STATIC
  cuda/cuda_attention.cpp
  cuda/cuda_backend.cpp
  cuda/cuda_block_gemm.cpp
  cuda/cuda_collectives.cpp
  cuda/cuda_copies.cpp
  cuda/cuda_elementwise.cpp
  cuda/cuda_gemm.cpp
  cuda/cuda_rope_sampling.cpp
  cuda/cuda_mla_step.cpp
  cuda/cuda_model_step.cpp
  cuda/cuda_moe.cpp
  cuda/cuda_rank_collectives.cpp
  cuda/device_info.cpp
  cuda/step_linear.cpp)
add_library(fleetcast::engine_cuda ALIAS fleetcast_engine_cuda)
target_include_directories(fleetcast_engine_cuda
  PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/cuda"
  PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/src")
target_link_libraries(fleetcast_engine_cuda
  PUBLIC fleetcast::engine CUDA::cudart CUDA::cublasLt
  PRIVATE fleetcast_engine_kernels)

# NCCL: the header's version and the collectives (cuda_collectives.cpp); optional: without it collectives
# are skipped with the reason.
find_library(FLEETCAST_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
find_path(FLEETCAST_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
if(FLEETCAST_NCCL_LIBRARY AND FLEETCAST_NCCL_INCLUDE_DIR)
  target_include_directories(fleetcast_engine_cuda PRIVATE "${FLEETCAST_NCCL_INCLUDE_DIR}")
  target_link_libraries(fleetcast_engine_cuda PRIVATE "${FLEETCAST_NCCL_LIBRARY}")
  target_compile_definitions(fleetcast_engine_cuda PRIVATE FLEETCAST_ENGINE_HAVE_NCCL=1)
endif()
message(STATUS "fleetcast engine: CUDA backend for ${CMAKE_CUDA_ARCHITECTURES}, NCCL ${FLEETCAST_NCCL_LIBRARY}")
