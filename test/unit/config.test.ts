import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDatabaseUrl } from '../../src/config.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('configuration', () => {
  it('has working defaults: SQLite in ./data, port 8080', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', baseUrl: 'http://localhost:8080', logLevel: 'info', devLogin: true, workers: 1 });
    expect(config.database).toEqual({ kind: 'sqlite', file: './data/scanyard.db' });
    expect(config.dataDir).toBe(path.resolve('data'));
    expect(config).toMatchObject({ advisorySources: [], advisorySyncMs: 6 * 3600 * 1000, advisoryAllowPrivate: false });
    expect(loadConfig({ SERVICE_ADVISORY_SOURCES: 'https://a.example/npm/all.zip, https://b.example/x.json' }).advisorySources)
      .toEqual(['https://a.example/npm/all.zip', 'https://b.example/x.json']);
  });

  it('keeps raw uploads in the database unless SERVICE_BLOB_URL names a bucket', () => {
    expect(loadConfig({}).blob).toBeNull();
    expect(loadConfig({ SERVICE_BLOB_URL: 's3://scans/raw/', AWS_REGION: 'eu-west-1' }).blob).toEqual({ bucket: 'scans', prefix: 'raw', endpoint: null, region: 'eu-west-1' });
    expect(loadConfig({ SERVICE_BLOB_URL: 's3://scans', SERVICE_BLOB_ENDPOINT: 'http://minio:9000/' }).blob).toEqual({ bucket: 'scans', prefix: '', endpoint: 'http://minio:9000', region: 'us-east-1' });
  });

  it('runs housekeeping hourly unless SERVICE_MAINTENANCE_SECONDS says otherwise', () => {
    expect(loadConfig({}).maintenanceMs).toBe(3600_000);
    expect(loadConfig({ SERVICE_MAINTENANCE_SECONDS: '1' }).maintenanceMs).toBe(1000);
    expect(() => loadConfig({ SERVICE_MAINTENANCE_SECONDS: '0' })).toThrow(ConfigError);
  });

  it('reads the spellings of DATABASE_URL people use', () => {
    expect(parseDatabaseUrl('sqlite:/tmp/x.db')).toEqual({ kind: 'sqlite', file: '/tmp/x.db' });
    expect(parseDatabaseUrl('sqlite:///tmp/x.db')).toEqual({ kind: 'sqlite', file: '/tmp/x.db' });
    expect(parseDatabaseUrl('./here.db')).toEqual({ kind: 'sqlite', file: './here.db' });
    expect(parseDatabaseUrl('postgres://u@h:5432/db')).toEqual({ kind: 'postgres', url: 'postgres://u@h:5432/db' });
    expect(parseDatabaseUrl('postgresql://u@h/db').kind).toBe('postgres');
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be a whole number (got "abc")'],
    [{ PORT: '70000' }, 'PORT must be between 1 and 65535 (got 70000)'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL uses "mysql", which is not supported'],
    [{ SERVICE_SESSION_SECRET: 'short' }, 'SERVICE_SESSION_SECRET must be at least 32 characters (it has 5)'],
    [{ NODE_ENV: 'production' }, 'SERVICE_SESSION_SECRET is required when NODE_ENV=production'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ SERVICE_BASE_URL: 'ftp://x' }, 'SERVICE_BASE_URL must be an http(s) URL'],
    [{ SERVICE_DEV_LOGIN: 'maybe' }, 'SERVICE_DEV_LOGIN must be true or false'],
    [{ SERVICE_WEBHOOK_ALLOW_PRIVATE: 'sometimes' }, 'SERVICE_WEBHOOK_ALLOW_PRIVATE must be true or false'],
    [{ SERVICE_ADVISORY_SOURCES: 'ftp://mirror/all.zip' }, 'SERVICE_ADVISORY_SOURCES: "ftp://mirror/all.zip" must be an http or https URL'],
    [{ SERVICE_ADVISORY_SOURCES: 'https://u:p@mirror/all.zip' }, 'SERVICE_ADVISORY_SOURCES: a URL must not carry a user name or password'],
    [{ SERVICE_ADVISORY_SOURCES: 'all.zip' }, 'SERVICE_ADVISORY_SOURCES: "all.zip" is not a URL'],
    [{ SERVICE_ADVISORY_SYNC_HOURS: '0' }, 'SERVICE_ADVISORY_SYNC_HOURS must be between 1 and 8760 (got 0)'],
    [{ SERVICE_WEBHOOK_LEASE_SECONDS: '1' }, 'SERVICE_WEBHOOK_LEASE_SECONDS must be between 2 and 3600'],
    [{ SERVICE_BLOB_URL: 'https://bucket.s3.amazonaws.com/raw' }, 'SERVICE_BLOB_URL must be s3://bucket or s3://bucket/prefix'],
    [{ SERVICE_BLOB_URL: 's3://Not_A_Bucket/raw' }, 'SERVICE_BLOB_URL must be s3://bucket or s3://bucket/prefix'],
    [{ SERVICE_BLOB_ENDPOINT: 'http://minio:9000' }, 'SERVICE_BLOB_ENDPOINT is set without SERVICE_BLOB_URL'],
    [{ SERVICE_BLOB_URL: 's3://raw', SERVICE_BLOB_ENDPOINT: 'minio:9000' }, 'SERVICE_BLOB_ENDPOINT must be an http or https URL'],
    [{ SERVICE_BLOB_URL: 's3://raw', SERVICE_BLOB_ENDPOINT: 'http://key:secret@minio:9000' }, 'SERVICE_BLOB_ENDPOINT must not carry a user name or password'],
    [{ SERVICE_PROVIDERS: '[{"id":"x","type":"gitbucket"}]' }, 'SERVICE_PROVIDERS[0]'],
  ])('stops on %j with a clear message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('turns dev login off when providers are configured', () => {
    const providers = JSON.stringify([{ id: 'gh', type: 'github', name: 'GitHub', client_id: 'a', client_secret: 'b' }]);
    expect(loadConfig({ SERVICE_PROVIDERS: providers }).devLogin).toBe(false);
  });

  it('keeps dev login on this machine unless HOST is set; with a provider or without dev login, every interface', () => {
    const providers = JSON.stringify([{ id: 'gh', type: 'github', name: 'GitHub', client_id: 'a', client_secret: 'b' }]);
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '' }).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ SERVICE_PROVIDERS: providers }).host).toBe('0.0.0.0');
    expect(loadConfig({ SERVICE_DEV_LOGIN: 'false' }).host).toBe('0.0.0.0');
    expect(loadConfig({ SERVICE_PROVIDERS: providers, HOST: '10.0.0.5' }).host).toBe('10.0.0.5');
  });

  it.each([['PORT=abc', { PORT: 'abc' }], ['DATABASE_URL=mysql://x', { DATABASE_URL: 'mysql://x' }]])(
    'makes the process exit 1 with one line on stderr for %s',
    (_name, env) => {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
        cwd: root, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000,
      });
      expect(run.status).toBe(1);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^scanyard: (PORT|DATABASE_URL) /);
      expect(run.stderr).not.toContain('    at ');
    },
  );
});
