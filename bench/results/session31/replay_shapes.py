"""replay_shapes.py - session 31: dgemm.c's thin-tile choice replayed over two sweep logs
of one job (thin off, thin auto by waves): for each FP64 cell, the shape the estimate by waves
and the estimate by the busiest SM pick, and the ratio measured for that shape in the same job.
A copy of dgemm.c's rules of fcb9429 in Python, for this analysis only (132 SMs, H200).
usage: python3 replay_shapes.py sweep_fp64_split_thin_off.log sweep_fp64_split_thin_auto.log"""
import math,sys
SMS=132; BPS=2
shapes={'W':(128,64),'TM':(32,128),'TN':(128,32)}
def tiles(m,n,sh): bm,bn=shapes[sh]; return math.ceil(m/bm)*math.ceil(n/bn)
def filled(m,n,sh): bm,bn=shapes[sh]; return m*n/(tiles(m,n,sh)*bm*bn)
def splits(m,n,k,batch,sh):
    t=tiles(m,n,sh); wave=SMS*BPS
    if batch!=1 or k<1024 or 2*t>wave: return 1
    s=wave//t; s=min(s,k//256); return s if s>=2 else 1
def est(m,n,k,b,sh,model):
    s=splits(m,n,k,b,sh); blocks=tiles(m,n,sh)*b*s
    bm,bn=shapes[sh]; w=bm*bn*(1 if sh=='W' else 1.5)*k/s
    if model=='wave': waves=blocks/(SMS*BPS); return max(waves,1)*w
    return math.ceil(blocks/SMS)*w
def pick(m,n,k,b,model):
    th='TM' if filled(m,n,'TM')>=filled(m,n,'TN') else 'TN'
    if k==0: return 'W'
    return th if est(m,n,k,b,th,model)<0.9*est(m,n,k,b,'W',model) else 'W'
def cells(f):
    out=[]
    for line in open(f):
        p=line.split()
        if len(p)<13 or p[0] not in('fp64','c128') : continue
        # fields from the right: ... m n k batch b dl cub ratio cdiff
        try: m,n,k,batch=int(p[-9]),int(p[-8]),int(p[-7]),int(p[-6]); r=float(p[-2])
        except: 
            try: m,n,k,batch=int(p[-9].replace('ld+3','0')),0,0,0
            except: pass
            continue
        out.append((p[0],p[1],' '.join(p[2:-9]),m,n,k,batch,r))
    return out
off=cells(sys.argv[1]); auto=cells(sys.argv[2])
import statistics
gm=lambda xs: math.exp(sum(math.log(x) for x in xs)/len(xs))
A=[];B=[];O=[];unk=0
for c,a in zip(off,auto):
    t,op,name,m,n,k,b,ro=c; ra=a[-1]
    if t=='c128': continue
    pa=pick(m,n,k,b,'wave'); pb=pick(m,n,k,b,'sm')
    if pa==pb: rb=ra if pa!='W' else (ra)  # same choice as measured auto
    elif pb=='W': rb=ro
    else: rb=None; unk+=1; print("unmeasured", c, pa, pb)
    if pa!=pb: print("differs %s %s %-22s %5d %5d %5d b%-6d wave:%s sm:%s off %.3f auto %.3f" % (t,op,name,m,n,k,b,pa,pb,ro,ra))
    O.append(ro);A.append(ra); 
    if rb: B.append(rb)
print("off %.3f  wave-auto %.3f  sm-auto(predicted) %.3f  unmeasured %d  n=%d" % (gm(O),gm(A),gm(B),unk,len(O)))
print("below .85: off", sum(x<.85 for x in O), "wave", sum(x<.85 for x in A), "sm", sum(x<.85 for x in B))
print("-- cells the wave model leaves wide that moved >12%:")
for c,a in zip(off,auto):
    t,op,name,m,n,k,b,ro=c; ra=a[-1]
    if t=='c128': continue
    if pick(m,n,k,b,'wave')=='W' and (ra/ro>1.12 or ra/ro<0.88): print(c, ra)
