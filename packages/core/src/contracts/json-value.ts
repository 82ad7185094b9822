/** A JSON value: what metadata and payloads may hold, so every backend can store it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
