export { patchLogged } from './logged-patches';
export { checkRecord, deleteRecords, patch, upsert } from './write-records';
