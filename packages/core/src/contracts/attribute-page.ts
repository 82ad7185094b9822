import type { AttributeValue } from './attribute-value';

/** A record without its text, payload or vector: what maintenance passes (decay) decide on. */
export interface AttributeRecord {
  id: string;
  namespace: string;
  tenant: string;
  attributes: Record<string, AttributeValue>;
}

/** One page of `scanAttributes`. `cursor` is absent on the last page. */
export interface AttributePage {
  records: AttributeRecord[];
  cursor?: string;
}
