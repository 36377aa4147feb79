// TypeBox schema of POST /api/v1/networks/{id}/opf (CONTRACT "Optimal power flow").
import { Type } from '@sinclair/typebox';
import { ISLANDING_RULES, literals, OPF_METHODS, OPF_STARTS } from './vocabulary.js';

export const OpfIn = Type.Object({
  method: Type.Optional(literals(OPF_METHODS)),
  async: Type.Optional(Type.Boolean()),
  timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600000 })),
  tolerance: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
  max_iterations: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  // Islands without a slack: refuse (default, 422 ISLANDED_BUS), isolate or new_reference (CONTRACT "Islands").
  islanding: Type.Optional(literals(ISLANDING_RULES)),
  // Where the interior point starts: default (MATPOWER's, then the case's state if that does not converge), case
  // (the model's voltages and dispatch, MATPOWER opf.start 2) or powerflow (a power flow's state, opf.start 3).
  start: Type.Optional(literals(OPF_STARTS)),
  // Store the dispatch (generator p; for AC also voltage set-points) as the network's next version.
  apply: Type.Optional(Type.Boolean()),
  // Preventive N-1 of the DC-OPF (CONTRACT "Security-constrained DC-OPF"; docs/opf.md).
  security: Type.Optional(
    Type.Object(
      {
        // "n-1-branches" or [{id?, branches: [indexes]}]: checked by src/opf/security.ts securityOutages (a union
        // here would meet the service's array coercion, which rewrites a one-element list before the second branch)
        contingencies: Type.Unsafe<'n-1-branches' | { id?: string; branches: number[] }[]>({
          description: '"n-1-branches", or a list of {id?: string, branches: [branch indexes from 0]}',
        }),
        limit: Type.Optional(Type.Union([Type.Literal('rate_c'), Type.Literal('rate_b'), Type.Literal('rate_a')])),
      },
      { additionalProperties: false },
    ),
  ),
}, { additionalProperties: false });
