import type { DataSource } from 'typeorm';
import type { Actor } from '../actor';
import { runsPage, type Prices } from '../runs/run-queries';
import { SqlWhere } from '../runs/sql-where';
import type { RunsListRequest, RunsPage } from '../runs/types';
import { findCampaign } from './campaign-views';

/** One page of a campaign's runs, with the filters and order of an agent's runs list. */
export async function campaignRunsPage(
  dataSource: DataSource,
  caller: Actor,
  campaignId: number,
  query: RunsListRequest,
  prices: Prices,
): Promise<RunsPage> {
  await findCampaign(dataSource, caller, campaignId);
  // The campaign is the caller's, so its runs are too: the campaign index serves the list.
  return runsPage(dataSource, new SqlWhere().add('r.campaign_id = ?', campaignId), query, prices);
}
