// The images feature's reads and writes, under ['images', orgId, …] (the template editor's picker
// reads the same lists, so an upload or a deletion refreshes it too).
import { call } from '../../shared/api/client.ts';
import { invalidate } from '../../shared/api/query.ts';
import { useImageList } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';

export function useImages(limit: number, cursor: string | undefined) {
  return useImageList(useOrg().orgId, { limit, ...(cursor ? { cursor } : {}) });
}

export function useImageActions() {
  const { api, orgId } = useOrg();
  return {
    /** Uploads one file: its bytes as they are, with its own type. */
    async upload(file: File) {
      const image = await call(
        api.POST('/v1/orgs/{orgId}/images', {
          params: { path: { orgId } },
          body: file as unknown as string,
          bodySerializer: (body: unknown) => body as BodyInit,
          headers: { 'content-type': file.type },
        }),
      );
      return image;
    },
    async remove(imageId: string) {
      await call(api.DELETE('/v1/orgs/{orgId}/images/{imageId}', { params: { path: { orgId, imageId } } }));
      await invalidate(['images', orgId]);
    },
    /** Reads the lists again (after a batch of uploads). */
    refresh: () => invalidate(['images', orgId]),
  };
}
