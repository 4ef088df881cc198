/*
 * kernels_sm90a.cu - the kernels that use sm_90a's architecture-specific
 * instructions (wgmma, setmaxnreg).  sm_90a code runs on sm_90 chips only,
 * so these are a fatbin of their own, loaded on compute capability 9.0
 * devices beside the portable one (kernels.cu).
 */
#include "hgemm_wgmma.cu"
