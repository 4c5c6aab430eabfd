; out[i] = in[i] * 3 + i for i = workgroup id * workgroup size + local id, the workgroup size
; read from the implicit (hidden) arguments as HIP's blockDim.x reads it: a kernel llvmlite's
; LLVM builds for targets clang-15 does not know (code object v6, the generic targets).

target triple = "amdgcn-amd-amdhsa"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
define amdgpu_kernel void @scale(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %ia = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %gsp = getelementptr i8, ptr addrspace(4) %ia, i64 12
  %gs = load i16, ptr addrspace(4) %gsp
  %block = zext i16 %gs to i32
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %g = call i32 @llvm.amdgcn.workgroup.id.x()
  %b = mul i32 %g, %block
  %i = add i32 %b, %t
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %i
  %v = load i32, ptr addrspace(1) %p
  %m = mul i32 %v, 3
  %r = add i32 %m, %i
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %i
  store i32 %r, ptr addrspace(1) %q
  ret void
}
