import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  createWebhookRepository,
  type SigningSecretRow,
  type WebhookRepository,
} from '../../entities/repositories/webhook.repository';
import type { Secrets } from '../../telephony/secrets';

/** What a tenant sees of its secret outside the rotation answer. */
export interface SigningSecretView {
  /** In full only in the answer to a rotation; otherwise masked. */
  secret: string;
  createdAt: Date;
  /** Until when the previous secret still signs deliveries; null when there is none. */
  previousExpiresAt: Date | null;
}

const PREFIX = 'whsec_';

/** 32 random bytes; the prefix lets secret scanners and people recognise it. */
export const generateSigningSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64url')}`;

/** The prefix and the last four characters; the rest as `*`, like stored telephony secrets. */
export const maskSigningSecret = (secret: string): string =>
  secret.length <= PREFIX.length + 4
    ? '*'.repeat(secret.length)
    : `${PREFIX}${'*'.repeat(secret.length - PREFIX.length - 4)}${secret.slice(-4)}`;

/**
 * Each organization's post-call webhook signing secret, sealed under SECRETS_KEY. A rotation keeps
 * the previous secret signing until its overlap ends, so receivers can switch without losing
 * deliveries; rotating again within the overlap drops the older one.
 */
export class WebhookSigningSecrets {
  private readonly webhooks: WebhookRepository;

  constructor(
    dataSource: DataSource,
    private readonly secrets: Secrets,
  ) {
    this.webhooks = createWebhookRepository(dataSource);
  }

  /** The keys a delivery is signed with, current first; creates the secret on first need so no delivery goes unsigned. */
  async signingKeys(organizationId: number): Promise<Buffer[]> {
    const row = (await this.read(organizationId)) ?? (await this.create(organizationId));
    const keys = [this.secrets.open(row.secret)];
    if (row.previous_secret && row.previous_valid) keys.push(this.secrets.open(row.previous_secret));
    return keys.map((key) => Buffer.from(key, 'utf8'));
  }

  /** The secret masked, or null when the organization has none yet. */
  async view(organizationId: number): Promise<SigningSecretView | null> {
    const row = await this.read(organizationId);
    if (!row) return null;
    return {
      secret: maskSigningSecret(this.secrets.open(row.secret)),
      createdAt: row.created_at,
      previousExpiresAt: row.previous_secret && row.previous_valid ? row.previous_expires_at : null,
    };
  }

  /**
   * A new secret, answered in full (the only time it is); the current one keeps signing for
   * `overlapSeconds`. One statement: concurrent rotations queue on the row and each sees the
   * secret the one before it wrote.
   */
  async rotate(organizationId: number, overlapSeconds: number): Promise<SigningSecretView> {
    const secret = generateSigningSecret();
    const row = await this.webhooks.rotateSigningSecret(organizationId, this.secrets.seal(secret), overlapSeconds);
    return { secret, createdAt: row.created_at, previousExpiresAt: row.previous_expires_at };
  }

  private read(organizationId: number): Promise<SigningSecretRow | null> {
    return this.webhooks.signingSecretOf(organizationId);
  }

  private async create(organizationId: number): Promise<SigningSecretRow> {
    // Two deliveries may get here at once: the first insert wins and both sign with its secret.
    await this.webhooks.insertSigningSecretIfNone(organizationId, this.secrets.seal(generateSigningSecret()));
    const row = await this.read(organizationId);
    if (!row) throw new Error(`organization ${organizationId} has no webhook signing secret`);
    return row;
  }
}
