import type { ProviderSync } from '../../telephony/provider';

/** A phone number as the domain answers it (documented by api/schemas/telephony.ts, checked to agree). */
export interface PhoneNumberView {
  id: number;
  telephony_configuration_id: number;
  address: string;
  /** E.164 for PSTN numbers. */
  address_normalized: string;
  address_type: 'pstn' | 'sip_uri' | 'sip_extension';
  country_code: string | null;
  label: string | null;
  inbound_workflow_id: number | null;
  inbound_workflow_name: string | null;
  is_active: boolean;
  is_default_caller_id: boolean;
  extra_metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  /** The result of pushing an inbound change to the provider. */
  provider_sync?: ProviderSync;
}
