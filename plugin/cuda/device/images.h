/*
 * images.h - the kernel families' fatbins embedded in the library.  The
 * list is data the build writes (CMakeLists.txt, dlgemm_cuda_family): one
 * entry per kernel translation unit, so adding a family is one line there.
 */
#ifndef DLG_CUDA_IMAGES_H
#define DLG_CUDA_IMAGES_H

typedef struct dlg_cuda_image {
  const char *family;          /* its name in the build: what device.c asks for */
  const unsigned char *fatbin; /* SASS for each architecture of the build */
  int sm90a;                   /* sm_90a code: load on compute capability 9.0 only */
} dlg_cuda_image;

/* Ends with an entry whose family is NULL. */
extern const dlg_cuda_image dlg_cuda_images[];

#endif
