/**
 * A plain predicate compiled from a simple valibot object schema, for the ingest hot path:
 * it says "valid" only for values the schema accepts as they are, and "ask the schema" for
 * anything else (which then also gives the error message). The schema stays the one
 * definition; this reads its structure, so the two cannot drift apart. Schemas using
 * anything it does not know get no predicate.
 */
import type * as v from 'valibot';

type Predicate = (value: unknown) => boolean;

interface SchemaLike {
  type: string;
  expects?: string;
  check?: (value: unknown) => boolean;
  literal?: unknown;
  options?: readonly unknown[];
  wrapped?: SchemaLike;
  item?: SchemaLike;
  entries?: Record<string, SchemaLike>;
  pipe?: readonly (SchemaLike & { requirement?: unknown })[];
  default?: unknown;
}

function compile(schema: SchemaLike): Predicate | undefined {
  // A piped schema keeps its base's type and lists the base first in `pipe`.
  if (schema.pipe) return compilePipe(schema);
  switch (schema.type) {
    case 'custom':
      return schema.check;
    case 'literal':
      return (x) => x === schema.literal;
    case 'picklist': {
      const options = new Set(schema.options);
      return (x) => options.has(x);
    }
    case 'boolean':
      return (x) => typeof x === 'boolean';
    case 'string':
      return (x) => typeof x === 'string';
    case 'optional': {
      // A default would change the output; only plain optionals are compiled.
      if (schema.default !== undefined || !schema.wrapped) return undefined;
      const inner = compile(schema.wrapped);
      return inner && ((x) => x === undefined || inner(x));
    }
    case 'array': {
      const item = schema.item && compile(schema.item);
      return item && ((x) => Array.isArray(x) && x.every(item));
    }
    case 'object': {
      const entries = Object.entries(schema.entries ?? {}).map(([key, s]) => [key, compile(s)] as const);
      if (entries.some(([, p]) => p === undefined)) return undefined;
      const checks = entries as (readonly [string, Predicate])[];
      return (x) =>
        typeof x === 'object' &&
        x !== null &&
        !Array.isArray(x) &&
        // Not destructured: an array pattern allocates an iterator for every field checked.
        checks.every((c) => c[1]((x as Record<string, unknown>)[c[0]]));
    }
    default:
      return undefined;
  }
}

/** `v.pipe(base, minValue|maxValue|maxLength ...)`: the base check, then each requirement. */
function compilePipe(schema: SchemaLike): Predicate | undefined {
  const [base, ...actions] = schema.pipe ?? [];
  const first = base && base !== schema ? compile(base) : undefined;
  if (!first) return undefined;
  const steps: Predicate[] = [first];
  for (const a of actions) {
    const r = a.requirement;
    if (a.type === 'min_value' && typeof r === 'number') steps.push((x) => (x as number) >= r);
    else if (a.type === 'max_value' && typeof r === 'number') steps.push((x) => (x as number) <= r);
    else if (a.type === 'max_length' && typeof r === 'number') steps.push((x) => (x as string).length <= r);
    else return undefined;
  }
  return (x) => steps.every((p) => p(x));
}

/** A predicate for a valibot object schema, or undefined when it uses anything not compiled. */
export function fastPredicate(schema: v.GenericSchema): Predicate | undefined {
  return compile(schema as unknown as SchemaLike);
}
