#include <sys/mman.h>
#include <stdio.h>
#include <time.h>
#include <string.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
int main(int argc,char**argv){
  size_t sz=64<<20; int huge=argc>1;
  char*p=mmap(0,sz+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  p=(char*)(((unsigned long)p+(2<<20)-1)&~((2UL<<20)-1));
  if(huge) madvise(p,sz,MADV_HUGEPAGE);
  double worst=0,tot=0;
  for(size_t off=0;off<sz;off+=2<<20){double t=now(); for(size_t i=0;i<2<<20;i+=4096)p[off+i]=1; double d=now()-t; tot+=d; if(d>worst)worst=d;}
  printf("huge=%d per 2MB: avg %.3f ms worst %.3f ms\n",huge,tot/32,worst);
  FILE*f=fopen("/proc/self/smaps_rollup","r");char l[256];while(fgets(l,256,f))if(strstr(l,"AnonHuge"))fputs(l,stdout);
}
