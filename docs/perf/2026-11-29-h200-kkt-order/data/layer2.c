/* B control QPs sharing QP 0's P (a layer's one pattern), polish on, eps 1e-5, double.
 * Prints per rep: polish wall (profile) and the sum of per-QP polish times, derivative wall.
 * Usage: layer2 B threads host|cuda */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gala/gala.h"
#include "gala/qp_derivative.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  int B=argc>1?atoi(argv[1]):1000, th=argc>2?atoi(argv[2]):1;
  const char *be=argc>3?argv[3]:"host";
  gala_qp_problem *p=calloc(B,sizeof *p);
  for(int k=0;k<B;++k) gala_qp_generate(GALA_QP_GEN_CONTROL,10,k+1,&p[k]);
  for(int k=1;k<B;++k) p[k].P=p[0].P;
  gala_context_options o; gala_context_options_default(&o);
  o.backend=strcmp(be,"cuda")?GALA_BACKEND_HOST:GALA_BACKEND_CUDA; o.host_threads=th;
  gala_context *ctx; if(gala_context_create(&o,&ctx)){printf("ctx %s\n",gala_last_error(NULL));return 1;}
  gala_qp_settings s; gala_qp_settings_default(&s); s.polishing=1; s.eps_abs=s.eps_rel=1e-5; s.dtype=GALA_DOUBLE; s.threads=th; s.profile=1;
  gala_qp_solver *sv; if(gala_qp_setup(ctx,p,B,&s,&sv)){printf("setup %s\n",gala_last_error(ctx));return 1;}
  size_t hn=0; for(int k=0;k<B;++k) hn+=p[k].n;
  double *dx=malloc(8*hn); for(size_t i=0;i<hn;++i) dx[i]=((i*7919)%13)/13.0-0.5;
  for(int rep=0;rep<4;++rep){
    double t0=now(); gala_qp_solve(sv); double t1=now();
    gala_qp_profile pf; gala_qp_get_profile(sv,&pf);
    double ps=0; int np=0; for(int k=0;k<B;++k){gala_qp_info in; gala_qp_get_info(sv,k,&in); ps+=in.polish_time; np+=in.status_polish==1;}
    double t2=now(); gala_qp_adjoint_derivative_compute(sv,dx,NULL); double t3=now();
    if(rep) printf("%s threads %2d: solve %.1f ms, polish wall %.1f ms, per-QP sum %.1f ms (%.0f us/QP, %d ok), derivative %.1f ms\n",be,th,(t1-t0)*1e3,pf.seconds[GALA_QP_PHASE_POLISH]*1e3,ps*1e3,ps*1e6/B,np,(t3-t2)*1e3);
  }
  return 0;
}
