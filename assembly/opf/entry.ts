// OPF entry points of build/powerflow.wasm (layout: ./layout.ts):
//   ptr = opfInputPtr(len)   reserve the f64 input buffer, write it at ptr
//   status = opfSolve()      solve; writes the output buffer
//   opfOutputPtr() / opfOutputLength()
// and one import, env.opfProgress(iteration, feascond, gradcond, compcond,
// objective) -> i32 (non-zero = stop). Memory may grow inside opfInputPtr()
// and opfSolve(): re-create views afterwards.
import { dcopf } from './dcopf';
import { acopf } from './acopf';
import { MipsOptions } from './mips';
import {
  OPF_ABI_VERSION, OPF_IN_VERSION, OPF_IN_METHOD, OPF_IN_NB, OPF_IN_NL, OPF_IN_NG, OPF_IN_FEASTOL, OPF_IN_GRADTOL,
  OPF_IN_COMPTOL, OPF_IN_COSTTOL, OPF_IN_MAXIT, OPF_OUT_HEADER, OPF_OUT_STATUS, OPF_BAD_INPUT, OPF_METHOD_DC,
  OPF_OUT_BUS_FIELDS, OPF_OUT_BR_FIELDS, OPF_OUT_GEN_FIELDS,
} from './layout';

let opfInput = new StaticArray<f64>(0);
let opfOutput = new StaticArray<f64>(0);
let opfOutLen: i32 = 0;

export function opfInputPtr(len: i32): usize {
  if (opfInput.length < len) opfInput = new StaticArray<f64>(len);
  return changetype<usize>(opfInput);
}
export function opfOutputPtr(): usize { return changetype<usize>(opfOutput); }
export function opfOutputLength(): i32 { return opfOutLen; }

export function opfSolve(): i32 {
  const inp = opfInput;
  const nb = <i32>inp[OPF_IN_NB], nl = <i32>inp[OPF_IN_NL], ng = <i32>inp[OPF_IN_NG];
  opfOutLen = OPF_OUT_HEADER + OPF_OUT_BUS_FIELDS * nb + OPF_OUT_BR_FIELDS * nl + OPF_OUT_GEN_FIELDS * ng;
  if (opfOutput.length < opfOutLen) opfOutput = new StaticArray<f64>(opfOutLen);
  const out = opfOutput;
  if (<i32>inp[OPF_IN_VERSION] != OPF_ABI_VERSION || nb <= 0 || nl < 0 || ng <= 0) {
    unchecked(out[OPF_OUT_STATUS] = <f64>OPF_BAD_INPUT);
    return OPF_BAD_INPUT;
  }
  const o = new MipsOptions();
  o.feastol = inp[OPF_IN_FEASTOL];
  o.gradtol = inp[OPF_IN_GRADTOL];
  o.comptol = inp[OPF_IN_COMPTOL];
  o.costtol = inp[OPF_IN_COSTTOL];
  o.maxIt = <i32>inp[OPF_IN_MAXIT];
  if (<i32>inp[OPF_IN_METHOD] == OPF_METHOD_DC) return dcopf(inp, out, o);
  return acopf(inp, out, o);
}
