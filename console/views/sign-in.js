// Sign in: a token from POST /api/v1/auth/token, kept in the session (api.js).
import { html, useState } from '/console/vendor/preact-htm.js';
import { api, session } from '/console/api.js';
import { ErrorBox } from '/console/components/error-box.js';

export function SignIn({ onIn }) {
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    try {
      const body = { username: f.get('username'), password: f.get('password') };
      if (f.get('tenant')) body.tenant_id = f.get('tenant');
      const r = await api('POST', '/api/v1/auth/token', body);
      session.token = r.data.token;
      onIn();
    } catch (err) { setError(err); }
  };
  return html`<form class="signin card" onSubmit=${submit} aria-label="sign in">
    <h2>Sign in to gridops</h2>
    <label>User name <input name="username" autocomplete="username" required /></label>
    <label>Password <input name="password" type="password" autocomplete="current-password" required /></label>
    <label>Tenant (optional) <input name="tenant" /></label>
    <button type="submit">Sign in</button>
    <${ErrorBox} error=${error} />
  </form>`;
}
