import type { BackendRecord } from './backend-record';
import type { RecordFilter } from './record-filter';

export interface ScanOptions {
  filter: RecordFilter;
  /** Opaque, from the previous page. */
  cursor?: string;
  /** Page size; backends may cap it, never the total. */
  limit?: number;
  /** Skip vectors when the caller does not need them (faster). */
  withVectors?: boolean;
}

/** One page of a scan in id order. `cursor` is absent on the last page. */
export interface ScanPage {
  records: BackendRecord[];
  cursor?: string;
}
