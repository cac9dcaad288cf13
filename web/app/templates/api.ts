// The templates feature's reads and writes, under the query keys ['templates', orgId, …] (the
// profile page reads the default template under the same prefix, so a save refreshes it too),
// and the editor's live preview.
import { useEffect, useRef, useState } from 'react';
import { call } from '../../shared/api/client.ts';
import { invalidate, useQuery } from '../../shared/api/query.ts';
import { useImageList, useTemplateList, useUserList } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';
import { largestPage } from '../../shared/api/field-limits.ts';
import type { Schemas } from '../../shared/api/types.ts';
import type { PreviewState } from './Preview.tsx';

export type Template = Schemas['Template'];
export type Starter = Schemas['StarterTemplate'];
export type TemplateChanges = { name?: string; html?: string; text?: string; isDefault?: boolean };

export function useTemplates() {
  return useTemplateList(useOrg().orgId);
}

export function useTemplate(templateId: string) {
  const { api, orgId } = useOrg();
  return useQuery(['templates', orgId, 'one', templateId], () =>
    call(api.GET('/v1/orgs/{orgId}/templates/{templateId}', { params: { path: { orgId, templateId } } })),
  );
}

/** The starter templates an admin can begin from (GET …/templates/starters). */
export function useStarters() {
  const { api, orgId } = useOrg();
  return useQuery(['templates', orgId, 'starters'], async () =>
    (await call(api.GET('/v1/orgs/{orgId}/templates/starters', { params: { path: { orgId } } }))).items,
  );
}

/** Whom the preview may render as: the org's users matching `q` (the first 50). */
export function usePreviewUsers(q: string) {
  return useUserList(useOrg().orgId, { limit: 50, ...(q ? { q } : {}) });
}

/** The org's images to insert (read when the picker opens). */
export function usePickerImages(open: boolean) {
  return useImageList(useOrg().orgId, { limit: largestPage('listImages') }, { enabled: open });
}

export function useTemplateActions() {
  const { api, orgId } = useOrg();
  return {
    async create(body: { name: string; html: string; text: string }) {
      const created = await call(api.POST('/v1/orgs/{orgId}/templates', { params: { path: { orgId } }, body }));
      await invalidate(['templates', orgId]);
      return created;
    },
    /** A save against the version read (in the body and as If-Match): a lost race is 409 or 412. */
    async update(base: Template, changes: TemplateChanges) {
      const saved = await call(
        api.PATCH('/v1/orgs/{orgId}/templates/{templateId}', {
          params: { path: { orgId, templateId: base.templateId }, header: { 'If-Match': `"${base.version}"` } },
          body: { version: base.version, ...changes },
        }),
      );
      await invalidate(['templates', orgId]);
      return saved;
    },
    async remove(template: Template) {
      await call(api.DELETE('/v1/orgs/{orgId}/templates/{templateId}', { params: { path: { orgId, templateId: template.templateId } } }));
      await invalidate(['templates', orgId]);
    },
    /** The template as it is now (after a save lost a race). */
    current(template: Template) {
      return call(api.GET('/v1/orgs/{orgId}/templates/{templateId}', { params: { path: { orgId, templateId: template.templateId } } }));
    },
  };
}

export const PREVIEW_DEBOUNCE_MS = 400;

/**
 * The editor's live preview: each change of the source or of the user waits for a pause in typing
 * (debounced), then asks the service's preview route; an answer that arrives after a newer request
 * was sent is dropped, so the preview never shows an older source than the editor.
 */
export function usePreview(input: { userId: string | undefined; html: string; text: string }) {
  const { api, orgId } = useOrg();
  const [preview, setPreview] = useState<PreviewState | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const latest = useRef(0);

  useEffect(() => {
    const userId = input.userId;
    if (!userId) return;
    const ticket = ++latest.current;
    const timer = setTimeout(() => {
      setBusy(true);
      call(api.POST('/v1/orgs/{orgId}/templates/preview', { params: { path: { orgId } }, body: { userId, html: input.html, text: input.text } })).then(
        (data) => {
          if (ticket !== latest.current) return;
          setPreview({ html: data.html, text: data.text, bytes: data.bytes, warnings: data.warnings });
          setError(null);
          setBusy(false);
        },
        (err: unknown) => {
          if (ticket !== latest.current) return;
          setError(err);
          setBusy(false);
        },
      );
    }, PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [api, orgId, input.userId, input.html, input.text]);

  return { preview, error, busy };
}
