// The study engine's public surface (the service imports from here only).
export * from './types.js';
export { planStudy, checkStudyRequest, studyCaseAt, studyCaseId, STUDY_DEFAULTS } from './plan.js';
export { studyChunkRows, caseReason, caseMetricsAt, newViolationSummary } from './rows.js';
export { violationKindName } from './violations.js';
export { solveStudyBase, solveStudyChunk } from './solve.js';
export { STUDY_CSV_COLUMNS, studyCsvHeader, studyCsvLines } from './csv.js';
