/** Schemas of the operator probes /healthz and /readyz (kept out of the OpenAPI document). */
import Type from 'typebox';

export const HealthResponse = Type.Object({ success: Type.Literal(true), status: Type.Literal('ok') });

export const ReadyResponse = Type.Object({
  success: Type.Literal(true),
  status: Type.Literal('ready'),
  database: Type.Enum(['sqlite', 'postgres']),
});
