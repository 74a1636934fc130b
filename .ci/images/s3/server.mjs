// s3rver on 0.0.0.0:9000 over the folder given last (`server /data`), answering to the credentials
// MinIO would take from MINIO_ROOT_USER and MINIO_ROOT_PASSWORD.
import S3rver from '/opt/s3/node_modules/s3rver/lib/s3rver.js';
import account from '/opt/s3/node_modules/s3rver/lib/models/account.js';

const { DUMMY_ACCOUNT } = account;

const directory = process.argv.at(-1);
if (process.env.MINIO_ROOT_USER && process.env.MINIO_ROOT_PASSWORD) {
  DUMMY_ACCOUNT.createKeyPair(process.env.MINIO_ROOT_USER, process.env.MINIO_ROOT_PASSWORD);
}
// Path-style only: with virtual-host buckets on, s3rver takes a host name such as `s3` (the compose
// service) for a bucket name (CNAME buckets).
new S3rver({ address: '0.0.0.0', port: 9000, directory, silent: false, vhostBuckets: false }).run().then(
  (address) => console.log(`s3rver listening on ${address.address}:${address.port}, keeping ${directory}`),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
process.on('SIGTERM', () => process.exit(0));
