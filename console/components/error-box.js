// An API error as a sentence a person can act on (api.js sentence()), announced to screen readers.
import { html } from '/console/vendor/preact-htm.js';
import { sentence } from '/console/api.js';

export function ErrorBox({ error }) {
  return error ? html`<div class="error" role="alert">${sentence(error)}</div>` : null;
}
