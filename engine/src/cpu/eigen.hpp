#pragma once
// Eigen for the CPU kernels. GCC 12 reports a false -W(maybe-)uninitialized inside its own AVX-512
// headers once Eigen inlines them with -march=native (GCC bug 105593: the intentional `__Y = __Y` of the
// _mm512_undefined intrinsics; fixed in GCC 13), so those two warnings are off while Eigen, and the
// intrinsics headers it pulls in, are read; they stay on for the kernels' own code.

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>
#pragma GCC diagnostic pop
