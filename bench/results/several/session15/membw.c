// host memory probe: T threads copy pageable <-> pinned (streaming or cached
// stores, big or small ring), alone and while every GPU DMAs.
#include <cuda_runtime.h>
#include <emmintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static size_t SRC=(size_t)4<<30, RING, MB=1<<20;
static char *src,*ring; static int T,mode,nt; static volatile int stop_dma;
static void sc(char*d,const char*s,size_t n){if(!nt){memcpy(d,s,n);return;}for(;n>=64;n-=64,d+=64,s+=64){__m128i a=_mm_loadu_si128((void*)s),b=_mm_loadu_si128((void*)(s+16)),c=_mm_loadu_si128((void*)(s+32)),e=_mm_loadu_si128((void*)(s+48));_mm_stream_si128((void*)d,a);_mm_stream_si128((void*)(d+16),b);_mm_stream_si128((void*)(d+32),c);_mm_stream_si128((void*)(d+48),e);}}
static void*worker(void*p){long i=(long)p;size_t per=SRC/T/MB*MB,o=i*per;for(size_t x=0;x<per;x+=MB){size_t r=(o+x)%RING; if(mode==0) sc(ring+r,src+o+x,MB); else sc(src+o+x,ring+r,MB);} _mm_sfence();return 0;}
static double run(int t,int m,int n,size_t ringmb){T=t;mode=m;nt=n;RING=ringmb*MB;pthread_t th[64];double t0=now();for(long i=0;i<t;i++)pthread_create(&th[i],0,worker,(void*)i);for(int i=0;i<t;i++)pthread_join(th[i],0);return (double)(SRC/T/MB*MB*T)/(now()-t0)/1e9;}
static void*dma(void*p){int d=(int)(long)p;cudaSetDevice(d);void*dv;char*h;size_t n=(size_t)256<<20;cudaMalloc(&dv,n);cudaHostAlloc((void**)&h,n,0);cudaStream_t s;cudaStreamCreate(&s);long it=0;double t0=now();while(!stop_dma){cudaMemcpyAsync(dv,h,n,cudaMemcpyHostToDevice,s);cudaStreamSynchronize(s);it++;}printf("  gpu%d DMA to device %.1f GB/s meanwhile\n",d,it*n/(now()-t0)/1e9);return 0;}
int main(void){int ng;cudaGetDeviceCount(&ng);{int v=0,w=0;cudaDeviceGetAttribute(&v,cudaDevAttrPageableMemoryAccess,0);cudaDeviceGetAttribute(&w,cudaDevAttrPageableMemoryAccessUsesHostPageTables,0);printf("pageable memory access %d (host page tables %d)\n",v,w);}
 src=malloc(SRC);memset(src,1,SRC);cudaHostAlloc((void**)&ring,(size_t)256<<20,0);memset(ring,2,(size_t)256<<20);
 int ts[]={4,8,16,24,31};
 for(int i=0;i<5;i++){run(ts[i],0,1,256);printf("gather  nt  ring 256: threads %2d %.1f GB/s\n",ts[i],run(ts[i],0,1,256));}
 for(int i=1;i<5;i++)printf("gather  mem ring 256: threads %2d %.1f GB/s\n",ts[i],run(ts[i],0,0,256));
 for(int i=1;i<5;i++)printf("gather  mem ring  16: threads %2d %.1f GB/s\n",ts[i],run(ts[i],0,0,16));
 for(int i=1;i<5;i++)printf("scatter nt  ring 256: threads %2d %.1f GB/s\n",ts[i],run(ts[i],1,1,256));
 for(int i=1;i<5;i++)printf("scatter mem ring  16: threads %2d %.1f GB/s\n",ts[i],run(ts[i],1,0,16));
 pthread_t d[8];stop_dma=0;for(long i=0;i<ng;i++)pthread_create(&d[i],0,dma,(void*)i);struct timespec w={0,300000000};nanosleep(&w,0);
 for(int i=2;i<5;i++)printf("with %d GPUs DMAing: gather nt threads %2d: %.1f GB/s\n",ng,ts[i],run(ts[i],0,1,256));
 stop_dma=1;for(int i=0;i<ng;i++)pthread_join(d[i],0);return 0;}
