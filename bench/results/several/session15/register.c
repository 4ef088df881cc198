// registration probe: cuMemHostRegister alone and beside staging copies + DMAs
#include <cuda_runtime.h>
#include <emmintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static size_t MB=1<<20, SRC=(size_t)4<<30, RING=(size_t)256<<20;
static char *src,*ring,*reg; static volatile int stop; static double moved[64];
static void sc(char*d,const char*s,size_t n){for(;n>=64;n-=64,d+=64,s+=64){__m128i a=_mm_loadu_si128((void*)s),b=_mm_loadu_si128((void*)(s+16)),c=_mm_loadu_si128((void*)(s+32)),e=_mm_loadu_si128((void*)(s+48));_mm_stream_si128((void*)d,a);_mm_stream_si128((void*)(d+16),b);_mm_stream_si128((void*)(d+32),c);_mm_stream_si128((void*)(d+48),e);}}
static void*gw(void*p){long i=(long)p;size_t o=(i*97*MB)%SRC;double n=0;while(!stop){sc(ring+(o%RING),src+o,MB);o=(o+MB)%SRC;n+=MB;}moved[i]=n;return 0;}
static double dmab[8];static char *dsrc[8];
static void*dma(void*p){int d=(int)(long)p;cudaSetDevice(d);void*dv;size_t n=(size_t)64<<20;cudaMalloc(&dv,n);char*h=dsrc[d];if(!h){cudaHostAlloc((void**)&h,n,0);}cudaStream_t s;cudaStreamCreate(&s);double b=0;size_t off=0;while(!stop){cudaMemcpyAsync(dv,h+off,n,cudaMemcpyHostToDevice,s);cudaStreamSynchronize(s);b+=n;if(dsrc[d])off=(off+n)%((size_t)1<<30);}dmab[d]=b;return 0;}
static double reg_time(char*p,size_t bytes,double*unreg){double t0=now();for(size_t o=0;o<bytes;o+=256*MB)cudaHostRegister(p+o,256*MB,0);double t1=now();if(unreg){for(size_t o=0;o<bytes;o+=256*MB)cudaHostUnregister(p+o);*unreg=now()-t1;}return t1-t0;}
int main(int argc,char**argv){int ng,T=24;cudaGetDeviceCount(&ng);for(int d=0;d<ng;d++){cudaSetDevice(d);cudaFree(0);}cudaSetDevice(0);
 src=malloc(SRC);memset(src,1,SRC);cudaHostAlloc((void**)&ring,RING,0);memset(ring,2,RING);
 size_t RB=(size_t)2<<30; reg=malloc(RB);memset(reg,3,RB);
 double u,r=reg_time(reg,RB,&u);printf("alone: register 2 GB %.1f ms (%.1f GB/s), unregister %.1f ms\n",r*1e3,RB/r/1e9,u*1e3);
 pthread_t th[64],d[8];
 for(int pass=0;pass<2;pass++){
  stop=0;for(long i=0;i<T;i++)pthread_create(&th[i],0,gw,(void*)i);for(long i=0;i<ng;i++)pthread_create(&d[i],0,dma,(void*)i);
  struct timespec w={0,200000000};nanosleep(&w,0);
  double t0=now(),rr=0,uu=0;
  if(pass==1){rr=reg_time(reg,RB,&uu);} else {nanosleep(&w,0);}
  double el=now()-t0; if(pass==0) el=0.2;
  stop=1;double tot=now()-t0+0.2;for(int i=0;i<T;i++)pthread_join(th[i],0);for(int i=0;i<ng;i++)pthread_join(d[i],0);
  double g=0;for(int i=0;i<T;i++)g+=moved[i];
  printf("%s: gather %d threads %.1f GB/s, DMA gpu0 %.1f gpu1 %.1f GB/s",pass?"while registering":"baseline",T,g/tot/1e9,dmab[0]/tot/1e9,ng>1?dmab[1]/tot/1e9:0);
  if(pass)printf("; register 2 GB %.1f ms (%.1f GB/s), unregister %.1f ms",rr*1e3,RB/rr/1e9,uu*1e3);printf("\n");
 }
 // direct DMA from registered pageable memory, beside gathers
 cudaHostRegister(reg,RB,0); dsrc[0]=reg; dsrc[1]=reg+((size_t)1<<30);
 stop=0;for(long i=0;i<T;i++)pthread_create(&th[i],0,gw,(void*)i);for(long i=0;i<ng;i++)pthread_create(&d[i],0,dma,(void*)i);
 double t0=now();struct timespec w={0,400000000};nanosleep(&w,0);stop=1;double tot=now()-t0;
 for(int i=0;i<T;i++)pthread_join(th[i],0);for(int i=0;i<ng;i++)pthread_join(d[i],0);
 double g=0;for(int i=0;i<T;i++)g+=moved[i];
 printf("direct DMA from registered: gather %.1f GB/s, DMA gpu0 %.1f gpu1 %.1f GB/s\n",g/tot/1e9,dmab[0]/tot/1e9,ng>1?dmab[1]/tot/1e9:0);
 return 0;}
