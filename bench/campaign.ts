// The campaign of `npm run bench`'s `render-warm-campaign` and `click` scenarios (DECISIONS wave 3,
// "Rules, campaigns and clicks"): a banner image (uploaded once, on first need) and a campaign for
// everyone started a minute ago, its link tracked. The org's default template has
// `{{ campaign.banner }}`: with no campaign active it renders as nothing, so every other scenario
// renders the same template without a banner. The campaign is active only between `start` and its end.
import { png } from '../test/helpers/images.ts';
import type { httpRequest } from '../test/helpers/server.ts';

type Api = (method: string, path: string, body?: unknown) => ReturnType<typeof httpRequest>;

export interface BenchCampaign {
  /** Starts a campaign: the tracked URL of its banner's link, and what ends it. */
  start: () => Promise<{ clickUrl: string; end: () => Promise<void> }>;
}

/** Runs `fn` while a campaign is active; `fn` gets the tracked URL of the banner's link. */
export async function duringCampaign<T>(c: BenchCampaign, fn: (clickUrl: string) => Promise<T>): Promise<T> {
  const { clickUrl, end } = await c.start();
  try {
    return await fn(clickUrl);
  } finally {
    await end();
  }
}

export function benchCampaign(serviceUrl: string, orgId: string, key: string, userId: string, api: Api): () => Promise<BenchCampaign> {
  let made: Promise<{ imageId: string }> | undefined;
  const setUp = async () => {
    const upload = await fetch(`${serviceUrl}/v1/orgs/${orgId}/images`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'image/png' },
      body: new Uint8Array(png(600, 100)),
    });
    if (upload.status !== 201) throw new Error(`banner image: ${await upload.text()}`);
    const { imageId } = (await upload.json()) as { imageId: string };
    return { imageId };
  };
  return async () => {
    made ??= setUp();
    const { imageId } = await made;
    return {
      start: async () => {
        const campaign = await api('POST', `/v1/orgs/${orgId}/campaigns`, {
          name: `Bench ${Date.now()}`,
          startsAt: new Date(Date.now() - 60_000).toISOString(),
          audience: {},
          variants: [{ imageId, link: 'https://shop.example/bench?ref=sig', alt: 'Bench sale', weight: 1 }],
          utm: { source: 'signature', medium: 'email', campaign: 'bench' },
        });
        if (campaign.status !== 201) throw new Error(`campaign: ${campaign.text}`);
        const end = async () => void (await api('DELETE', `/v1/orgs/${orgId}/campaigns/${campaign.body.campaignId}`));
        const rendered = await api('POST', `/v1/orgs/${orgId}/render/${userId}`);
        const clickUrl = /href="([^"]*\/v1\/c\/[^"]+)"/.exec(String(rendered.body?.html))?.[1];
        if (!clickUrl) {
          await end();
          throw new Error(`no tracked banner link in the render: ${rendered.text}`);
        }
        return { clickUrl, end };
      },
    };
  };
}
