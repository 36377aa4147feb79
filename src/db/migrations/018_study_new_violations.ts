// Violations relative to the base case (CONTRACT): a case row's count of new or worsened violations and its
// largest new or worsened loading, as scalars for `?violation=new` and `sort=-max_new_loading_percent`. Each
// violation tuple of study_cases.violations gains its base value and kind ([type, element, value, limit,
// base, kind]); rows stored before keep their four fields and answer base_value null, kind new.
export const sql = `
ALTER TABLE study_cases ADD COLUMN new_violations int NOT NULL DEFAULT 0;
ALTER TABLE study_cases ADD COLUMN max_new_loading_percent float8;
CREATE INDEX study_cases_new_loading ON study_cases (study_id, max_new_loading_percent DESC NULLS LAST, case_index);
CREATE INDEX study_cases_new ON study_cases (study_id, case_index) WHERE new_violations > 0;
`;
