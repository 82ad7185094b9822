import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { OpenApiDocument, OpenApiOperation } from '../spec';

const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

const SPEC_ID = 'qdrant-openapi';
const ANNOTATIONS = new Set([
  'description',
  'default',
  'example',
  'examples',
  'deprecated',
  'title',
  'readOnly',
  'writeOnly',
]);

/**
 * OpenAPI 3.0 schema → JSON Schema for Ajv: `nullable: true` becomes a null
 * alternative (alone, `{ nullable: true }` is just null), and local
 * `#/components/...` refs point into the spec registered under SPEC_ID.
 */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) out.$ref = `${SPEC_ID}${value}`;
    else if (key === 'properties' || key === 'patternProperties') {
      out[key] = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, toJsonSchema(v)]));
    } else out[key] = toJsonSchema(value);
  }
  if (out.nullable === true) {
    delete out.nullable;
    const constraints = Object.keys(out).filter((k) => !ANNOTATIONS.has(k));
    if (constraints.length === 0) return { ...out, type: 'null' };
    if (typeof out.type === 'string' && !out.$ref) {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
      return out;
    }
    const annotations = Object.fromEntries(Object.entries(out).filter(([k]) => ANNOTATIONS.has(k)));
    const rest = Object.fromEntries(Object.entries(out).filter(([k]) => !ANNOTATIONS.has(k)));
    return { ...annotations, anyOf: [rest, { type: 'null' }] };
  }
  if (out.nullable === false) delete out.nullable;
  return out;
}

export interface CompiledOperation {
  operationId: string;
  method: string;
  path: string;
  pattern: RegExp;
  pathParams: string[];
  query: Map<string, { required: boolean; validate: ValidateFunction; type?: string }>;
  body?: { required: boolean; validate: ValidateFunction };
  response?: ValidateFunction;
}

/** Request (and response) validation for every operation of the Qdrant REST API. */
export class OpenApiValidator {
  readonly version: string;
  private readonly routes: {
    method: string;
    path: string;
    pattern: RegExp;
    pathParams: string[];
    raw: OpenApiOperation;
    compiled?: CompiledOperation;
  }[] = [];
  private readonly ajv: Ajv;

  constructor(spec: OpenApiDocument) {
    this.version = spec.info.version;
    this.ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
    addFormats(this.ajv);
    const uint = (max: number) => ({
      type: 'number' as const,
      validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= max,
    });
    this.ajv.addFormat('uint', uint(Number.MAX_SAFE_INTEGER));
    this.ajv.addFormat('uint64', uint(Number.MAX_SAFE_INTEGER));
    this.ajv.addFormat('uint32', uint(2 ** 32 - 1));
    this.ajv.addFormat('uint8', uint(255));
    this.ajv.addFormat('partial-date-time', true);
    this.ajv.addSchema({ $id: SPEC_ID, components: toJsonSchema(spec.components) });
    for (const [path, methods] of Object.entries(spec.paths)) {
      for (const [method, raw] of Object.entries(methods)) {
        const pathParams: string[] = [];
        const pattern = new RegExp(
          `^${path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
            pathParams.push(name);
            return '([^/]+)';
          })}$`,
        );
        this.routes.push({ method: method.toUpperCase(), path, pattern, pathParams, raw });
      }
    }
  }

  /** Schemas are compiled on first use: the spec has hundreds of operations, a test uses a dozen. */
  private compile(route: (typeof this.routes)[number]): CompiledOperation {
    const { path, pattern, pathParams, raw: op } = route;
    const method = route.method;
    const query = new Map<string, { required: boolean; validate: ValidateFunction; type?: string }>();
    for (const p of op.parameters ?? []) {
      if (p.in !== 'query') continue;
      const schema = toJsonSchema(p.schema) as { type?: string };
      query.set(p.name, { required: p.required ?? false, validate: this.ajv.compile(schema), type: schema.type });
    }
    const json = op.requestBody?.content['application/json'];
    const body = json
      ? { required: op.requestBody?.required ?? false, validate: this.ajv.compile(toJsonSchema(json.schema) as object) }
      : undefined;
    const ok = op.responses['200']?.content?.['application/json']?.schema;
    const response = ok ? this.ajv.compile(toJsonSchema(ok) as object) : undefined;
    return { operationId: op.operationId, method, path, pattern, pathParams, query, body, response };
  }

  /** The operation a request addresses, with its path parameters. */
  match(method: string, pathname: string): { op: CompiledOperation; params: Record<string, string> } | undefined {
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const m = route.pattern.exec(pathname);
      if (!m) continue;
      const params: Record<string, string> = {};
      route.pathParams.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]!);
      });
      route.compiled ??= this.compile(route);
      return { op: route.compiled, params };
    }
    return undefined;
  }

  /** Everything the real server would reject in this request, as messages ([] when valid). */
  validateRequest(op: CompiledOperation, query: URLSearchParams, body: unknown, hasBody: boolean): string[] {
    const problems: string[] = [];
    for (const [name, param] of op.query) {
      const raw = query.get(name);
      if (raw === null) {
        if (param.required) problems.push(`query parameter ${name} is required`);
        continue;
      }
      const value = coerce(raw, param.type);
      if (!param.validate(value))
        problems.push(`query parameter ${name}=${raw}: ${this.ajv.errorsText(param.validate.errors)}`);
    }
    if (op.body) {
      if (!hasBody) {
        if (op.body.required) problems.push('request body is required');
      } else if (!op.body.validate(body)) {
        problems.push(`request body: ${this.ajv.errorsText(op.body.validate.errors, { dataVar: 'body' })}`);
      }
    }
    return problems;
  }

  /** Checks the fake's own 200 responses against the spec (a fake that answers wrongly proves nothing). */
  validateResponse(op: CompiledOperation, body: unknown): string[] {
    if (!op.response || op.response(body)) return [];
    return [`response of ${op.operationId}: ${this.ajv.errorsText(op.response.errors, { dataVar: 'response' })}`];
  }
}

function coerce(raw: string, type: string | undefined): unknown {
  if (type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  if (type === 'integer' || type === 'number')
    return raw.trim() !== '' && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
  return raw;
}
