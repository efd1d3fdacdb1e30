/**
 * Shared tool plumbing: a zod schema validates the model's arguments and yields the JSON-schema
 * spec the model sees; invalid arguments and unexpected exceptions become error results.
 */
import { z } from 'zod';
import type { JsonSchema } from '../model/types.js';
import { type FileState, fail, type Tool, type ToolContext, type ToolResult, type Touched } from './types.js';

export interface ToolDefinition<S extends z.ZodType> {
  name: string;
  description: string;
  schema: S;
  mutates: boolean;
  /** The files a call reads or writes (see Tool.touches); invalid arguments touch nothing. */
  touches?(args: z.infer<S>): Touched;
  /** See Tool.fileState (file tools only). */
  fileState?(path: string): Promise<FileState>;
  run(args: z.infer<S>, context: ToolContext): Promise<ToolResult>;
}

/** The schema of a tool without arguments (one constant: converted once, see `parametersOf`). */
export const NO_ARGUMENTS = z.object({});

export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): Tool {
  return {
    spec: { name: def.name, description: def.description, parameters: toParameters(def.schema) },
    mutates: def.mutates,
    ...(def.touches
      ? {
          touches(args: unknown): Touched {
            const parsed = def.schema.safeParse(args);
            return parsed.success && def.touches ? def.touches(parsed.data) : [];
          },
        }
      : {}),
    ...(def.fileState ? { fileState: def.fileState } : {}),
    async run(args: unknown, context: ToolContext): Promise<ToolResult> {
      const parsed = def.schema.safeParse(args);
      if (!parsed.success) return fail(formatArgumentError(def.name, parsed.error));
      try {
        return await def.run(parsed.data, context);
      } catch (error) {
        // Tools never throw: anything unexpected becomes a result the model can read.
        return fail(`${def.name} failed: ${errorMessage(error)}`);
      }
    },
  };
}

export function formatArgumentError(toolName: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : 'arguments';
    return `- ${where}: ${issue.message}`;
  });
  return `Invalid arguments for ${toolName}:\n${lines.join('\n')}`;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/**
 * Each schema converted once per process (a tool's schema is a module constant, and every peer builds
 * its tools: 1,000 peers spent ~19 s of a profiled run converting the same schemas). Frozen, as every
 * tool built from the schema shares it.
 */
const parametersOf = new WeakMap<z.ZodType, JsonSchema>();

/** JSON schema for the model: no `$schema` key, no MAX_SAFE_INTEGER noise from `.int()`. */
function toParameters(schema: z.ZodType): JsonSchema {
  const known = parametersOf.get(schema);
  if (known) return known;
  const json = z.toJSONSchema(schema) as Record<string, unknown>;
  delete json.$schema;
  const parameters = deepFreeze(stripSafeIntegerBounds(json)) as JsonSchema;
  parametersOf.set(schema, parameters);
  return parameters;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function stripSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSafeIntegerBounds);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if ((key === 'maximum' || key === 'minimum') && Math.abs(Number(inner)) === Number.MAX_SAFE_INTEGER) {
        continue;
      }
      out[key] = stripSafeIntegerBounds(inner);
    }
    return out;
  }
  return value;
}
