// Following an asynchronous task to its end, as an operator watches it: progress live from the SSE stream,
// the end by polling its status (an event can be missed on a reconnect; the status cannot).
import { api, listen } from '/console/api.js';

/** Follows a task (and, for studies, the study) until it ends: progress from the topic powerflow
 *  (powerflow.progress and study.progress events of this network), the end by polling its status. */
export async function followTask(taskId, onProgress, networkId, studyId) {
  const ac = new AbortController();
  listen({ topics: 'powerflow', network_id: networkId }, (e) => {
    const p = e.data?.payload ?? {};
    if (studyId && p.study_id === studyId && p.total) onProgress(p.done / p.total);
    else if (!studyId && p.task_id === taskId && p.max_iterations) onProgress(Math.min(1, (p.iteration ?? 0) / p.max_iterations));
  }, ac.signal);
  try {
    for (;;) {
      const st = (await api('GET', studyId ? `/api/v1/studies/${studyId}` : `/api/v1/tasks/${taskId}`)).data;
      if (['completed', 'failed', 'cancelled'].includes(st.status)) { onProgress(1); return st; }
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally { ac.abort(); }
}
