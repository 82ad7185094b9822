export {
  applyEntityEvidence,
  ENTITY_HOP_SEEDS,
  ENTITY_HOP_WEIGHT,
  ENTITY_LINK_LIMIT,
  ENTITY_QUERY_WEIGHT,
  type EntityEvidenceOptions,
  entitiesOf,
  queryEntityKeys,
} from './entity-evidence';
export { DATE_KEY_PREFIX, dateEntity, ENTITY_KINDS, entityKey } from './entity-key';
export { type ExtractEntitiesOptions, extractEntities, scanEntities } from './extract-entities';
export { batchEntities, type EntitySource, validateEntities } from './memory-entities';
export {
  type EntityNeighbour,
  type EntityRef,
  type EntityScope,
  type EntitySummary,
  entityMemories,
  entityNeighbours,
  entityRefKey,
  listEntities,
} from './entity-api';
