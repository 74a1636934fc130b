// One upload through a running Scanyard, as a pipeline sends it: dev login (the instance runs with
// SERVICE_DEV_LOGIN=true), an organisation, a repository, an upload-scoped API key, a SARIF upload
// to the first address, then the upload read back, complete, from the last address (another
// instance behind the same SERVICE_BASE_URL, when given). Requests carry SERVICE_BASE_URL's host.
//   node .ci/smoke-upload.mjs SERVICE_BASE_URL ADDRESS [ADDRESS...]
import http from 'node:http';

const [baseUrl, ...addresses] = process.argv.slice(2);
if (!baseUrl || addresses.length === 0) {
  console.error('usage: node .ci/smoke-upload.mjs SERVICE_BASE_URL ADDRESS [ADDRESS...]');
  process.exit(2);
}
const base = new URL(baseUrl);
const first = addresses[0];
const last = addresses.at(-1);

function request(address, method, path, { body, headers = {} } = {}) {
  const target = new URL(path, address);
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(target, {
      method,
      headers: {
        host: base.host,
        ...(method !== 'GET' ? { origin: base.origin } : {}),
        ...(payload !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function expectStatus(res, status, what) {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${res.text.slice(0, 500)}`);
  return res;
}

const login = expectStatus(await request(first, 'POST', '/auth/dev-login'), 200, 'dev login');
const cookie = [login.headers['set-cookie']].flat().map((c) => c.split(';')[0]).join('; ');
const as = { headers: { cookie } };
const suffix = Date.now().toString(36);
const org = expectStatus(await request(first, 'POST', '/api/v1/orgs', { ...as, body: { name: `ci-${suffix}` } }), 201, 'creating an organisation').json();
const repo = expectStatus(await request(first, 'POST', `/api/v1/orgs/${org.id}/repos`, { ...as, body: { name: 'payments-api' } }), 201, 'creating a repository').json();
const key = expectStatus(await request(first, 'POST', '/api/v1/apikeys', { ...as, body: { name: 'ci', scopes: ['upload'] } }), 201, 'creating an API key').json().key;

// SARIF 2.1.0 (OASIS), as a scanner writes it: one rule, one result with a location.
const sarif = JSON.stringify({
  $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
  version: '2.1.0',
  runs: [{
    tool: { driver: { name: 'CI smoke', version: '1.0.0', rules: [{ id: 'sql-injection', shortDescription: { text: 'SQL injection' } }] } },
    results: [{
      ruleId: 'sql-injection', level: 'error', message: { text: 'User input reaches a SQL query.' },
      locations: [{ physicalLocation: { artifactLocation: { uri: 'src/db.js' }, region: { startLine: 42 } } }],
    }],
  }],
});
const accepted = expectStatus(await request(first, 'POST', `/api/v1/repos/${repo.id}/upload?commit_sha=0123456789abcdef&ref=main`, {
  body: sarif, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/sarif+json' },
}), 202, 'uploading').json();

let upload = accepted;
const deadline = Date.now() + 120_000;
while (upload.status !== 'complete' && upload.status !== 'failed' && Date.now() < deadline) {
  upload = expectStatus(await request(last, 'GET', `/api/v1/uploads/${accepted.id}?wait=10`, as), 200, 'reading the upload').json();
}
if (upload.status !== 'complete' || upload.counts.new !== 1) {
  throw new Error(`the upload did not complete with one new finding: ${JSON.stringify(upload)}`);
}
console.log(`upload ${upload.id} complete through ${first}${last !== first ? `, read through ${last}` : ''}: ${JSON.stringify(upload.counts)}`);
