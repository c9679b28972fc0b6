import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { DataConverter, SearchAttributeType } from '@temporalio/common';
import type { SearchAttributeKey } from '@temporalio/common/lib/search-attributes';
import { customSearchAttributes } from '../workflows/search-attributes';

const indexedValueType: Record<SearchAttributeType, temporal.api.enums.v1.IndexedValueType> = {
  TEXT: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  KEYWORD: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  INT: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
  DOUBLE: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  BOOL: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  DATETIME: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KEYWORD_LIST: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/**
 * The converter of a client that sends and reads no payloads: operator calls such as promoting a
 * worker build. Every client that starts, signals or reads workflows uses `temporalDataConverter`.
 */
export const NO_PAYLOADS: DataConverter = {};

/** A client whose payloads go through `dataConverter` (the service's is `temporalDataConverter`). */
export async function connectTemporalClient(
  address: string,
  namespace: string,
  dataConverter: DataConverter,
): Promise<Client> {
  const connection = await Connection.connect({ address, connectTimeout: '5 seconds' });
  return new Client({ connection, namespace, dataConverter });
}

/**
 * Registers our custom search attributes where missing, through the operator API that
 * `temporal operator search-attribute create` calls, so it also works against a server we did not
 * start. Idempotent. Returns the names it added.
 */
export async function ensureSearchAttributes(
  connection: Connection,
  namespace: string,
  keys: SearchAttributeKey<SearchAttributeType>[] = customSearchAttributes,
): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = existing.customAttributes ?? {};
  for (const key of keys) {
    const registered = known[key.name];
    if (registered !== undefined && registered !== indexedValueType[key.type]) {
      throw new Error(`Search attribute ${key.name} is registered with another type than ${key.type}`);
    }
  }
  const missing = keys.filter((key) => !(key.name in known));
  if (missing.length > 0) {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((key) => [key.name, indexedValueType[key.type]])),
    });
  }
  return missing.map((key) => key.name);
}
