export interface BackendInitOptions {
  /** Dimension of every vector the store will hold; a backend built with another refuses. */
  dimension: number;
}
