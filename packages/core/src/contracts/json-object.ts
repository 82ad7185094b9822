import type { JsonValue } from './json-value';

export type JsonObject = { [key: string]: JsonValue };
