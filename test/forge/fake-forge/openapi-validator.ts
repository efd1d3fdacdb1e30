/**
 * Checks an HTTP request against an OpenAPI 3.0 description: the path and method must be an
 * operation of the description; its path and query parameters must match their schemas (required
 * ones present, none that the operation does not name); a JSON body must be allowed, present when
 * required, and valid against the operation's request body schema (ajv, `$ref`s into the
 * description's components). On top of the description, one rule of ours: a top-level body property
 * the schema does not name is reported too (a real forge ignores it silently, so a misspelt field
 * would pass unnoticed). The answer is the list of problems: empty when the request is valid.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Json;
}

interface Operation {
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Json }> } | { $ref: string };
}

export interface OpenApiRequest {
  method: string;
  /** The path below the API base, still percent-encoded (`/projects/group%2Fname`). */
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  /** The parsed JSON body, or undefined when the request had none. */
  body: unknown;
}

export interface OpenApiValidator {
  /** The description's `info.title` and `info.version`, for messages. */
  readonly name: string;
  validate(request: OpenApiRequest): string[];
}

interface Route {
  template: string;
  pattern: RegExp;
  names: string[];
  literalLength: number;
}

export function openApiValidator(spec: Json): OpenApiValidator {
  const info = (spec.info ?? {}) as { title?: string; version?: string };
  const name = `${info.title ?? 'API'} ${info.version ?? ''}`.trim();
  const paths = (spec.paths ?? {}) as Record<string, Record<string, Operation>>;
  const components = spec.components ?? {};
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // Formats of GitHub's description that ajv-formats does not know: not checked.
  for (const format of ['repo.nwo', 'timestamp', 'binary', 'int64', 'int32', 'double', 'uri-template'])
    ajv.addFormat(format, true);
  const compiled = new Map<string, ValidateFunction>();
  const routes: Route[] = Object.keys(paths)
    .map((template) => {
      const names: string[] = [];
      const source = template
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const param = /^\{([^}]+)\}$/.exec(part);
          if (param) {
            names.push(param[1] ?? '');
            return '([^/]+)';
          }
          return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
        })
        .join('');
      return {
        template,
        pattern: new RegExp(`^${source}$`),
        names,
        literalLength: template.replace(/\{[^}]+\}/g, '').length,
      };
    })
    // A literal segment wins over a parameter (`/user/repos` before `/users/{username}`).
    .sort((a, b) => b.literalLength - a.literalLength);

  function resolve<T>(node: T | { $ref: string }): T {
    let current: unknown = node;
    for (let i = 0; i < 10; i++) {
      const ref = (current as { $ref?: unknown }).$ref;
      if (typeof ref !== 'string') break;
      current = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((at, key) => (at as Json | undefined)?.[key.replace(/~1/g, '/')], spec);
    }
    return current as T;
  }

  function schemaCheck(key: string, schema: Json, value: unknown): string[] {
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile({ ...schema, components });
      compiled.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath ? `${e.instancePath} ` : ''}${e.message ?? 'is invalid'}`,
    );
  }

  return {
    name,
    validate(request) {
      const method = request.method.toLowerCase();
      const matched = routes
        .map((route) => ({ route, match: route.pattern.exec(request.path) }))
        .find((r) => r.match !== null && paths[r.route.template]?.[method] !== undefined);
      if (!matched?.match) return [`${request.method} ${request.path} is not an operation of ${name}`];
      const { route, match } = matched;
      const item = paths[route.template] as Record<string, unknown>;
      const operation = item[method] as Operation;
      const where = `${request.method} ${route.template}`;
      const problems: string[] = [];
      const parameters = [
        ...((item.parameters as Operation['parameters']) ?? []),
        ...(operation.parameters ?? []),
      ].map((p) => resolve<Parameter>(p));

      route.names.forEach((param, i) => {
        const value = decodeURIComponent(match[i + 1] ?? '');
        const declared = parameters.find((p) => p.in === 'path' && p.name === param);
        if (!declared) problems.push(`${where}: path parameter ${param} is not described`);
        else if (declared.schema)
          problems.push(
            ...schemaCheck(`${where} path ${param}`, declared.schema, coerce(declared.schema, value)).map(
              (e) => `${where}: path parameter ${param} ${e}`,
            ),
          );
      });
      for (const param of parameters.filter((p) => p.in === 'query')) {
        const value = request.query.get(param.name);
        if (value === null) {
          if (param.required) problems.push(`${where}: query parameter ${param.name} is required`);
          continue;
        }
        if (param.schema)
          problems.push(
            ...schemaCheck(`${where} query ${param.name}`, param.schema, coerce(param.schema, value)).map(
              (e) => `${where}: query parameter ${param.name} ${e}`,
            ),
          );
      }
      for (const key of new Set(request.query.keys()))
        if (!parameters.some((p) => p.in === 'query' && p.name === key))
          problems.push(`${where}: query parameter ${key} is not described`);

      const body = operation.requestBody ? resolve(operation.requestBody) : undefined;
      if (request.body === undefined) {
        if (body?.required) problems.push(`${where}: a request body is required`);
        return problems;
      }
      const json = body?.content?.['application/json'];
      if (!json) {
        problems.push(`${where}: takes no JSON body`);
        return problems;
      }
      if (!request.contentType?.startsWith('application/json'))
        problems.push(`${where}: the body's content type is ${request.contentType ?? 'missing'}, not JSON`);
      if (json.schema) {
        problems.push(
          ...schemaCheck(`${where} body`, json.schema, request.body).map((e) => `${where}: body ${e}`),
        );
        problems.push(
          ...unnamedProperties(resolve<Json>(json.schema), request.body).map((p) => `${where}: ${p}`),
        );
      }
      return problems;
    },
  };

  /** Our own rule: top-level body properties that no branch of the schema names. */
  function unnamedProperties(schema: Json, body: unknown): string[] {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
    const branches = [schema, ...((schema.oneOf ?? schema.anyOf ?? []) as Json[])].map((s) =>
      resolve<Json>(s),
    );
    const named = new Set<string>();
    for (const branch of branches) {
      if (branch.additionalProperties !== undefined && branch.additionalProperties !== false) return [];
      for (const key of Object.keys((branch.properties ?? {}) as Json)) named.add(key);
    }
    if (named.size === 0) return [];
    return Object.keys(body)
      .filter((key) => !named.has(key))
      .map((key) => `body property ${key} is not in the description`);
  }
}

/** A path or query value (always text) as the type its schema wants, for the schema check. */
function coerce(schema: Json, value: string): unknown {
  const type = schema.type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  if (type === 'array') return value.split(',');
  return value;
}
