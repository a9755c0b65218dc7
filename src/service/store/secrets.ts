import type { Store } from './store.js';

/** Service-wide secrets (e.g. the JWT signing key) that must survive restarts of a sandbox. */
export class SecretRepository {
  constructor(private readonly store: Store) {}

  getOrCreate(name: string, create: () => Buffer, at: number): Buffer {
    this.store.db
      .prepare('INSERT INTO service_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
      .run(name, create(), at);
    return (this.store.db.prepare('SELECT value FROM service_secrets WHERE name = ?').get(name) as { value: Buffer }).value;
  }
}
