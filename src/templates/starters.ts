// Starter templates: a new org gets the first as its default, and the gallery
// (`GET /v1/orgs/{orgId}/templates/starters`) offers them all as places to start from. Outlook-safe:
// tables for layout with widths as attributes, inline styles only (Outlook's Word engine and Gmail
// drop <style> and most CSS), web-safe fonts, no background images; each ends with the open-tracking
// pixel. Optional fields are left out when empty, so no stray separators show.
//
// Each is written in exactly the email-safe form that saving it through the template checks gives
// (`html_prepared` = `html`: self-closed void elements, styles already inline);
// `test/starters.test.ts` proves it, so an org gets its starter without the render threads (the
// CLI has none).
import { decodeCursor, toPage, type Page, type PageRequest } from '../store/pagination.ts';

export interface Starter {
  starterId: string;
  name: string;
  html: string;
  text: string;
}

const PIXEL = '<img src="{{ pixel_url }}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" />';

const classic: Starter = {
  starterId: 'classic',
  name: 'Classic',
  html: `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;font-family:Arial,Helvetica,sans-serif;font-size:13px;line-height:18px;color:#333333">
<tr><td style="padding:0 0 2px 0;font-size:15px;font-weight:bold;color:#1d2330">{{ user.name }}</td></tr>
{%- if user.title != blank or user.department != blank %}
<tr><td style="padding:0 0 6px 0;color:#555555">{{ user.title }}{% if user.title != blank and user.department != blank %} · {% endif %}{{ user.department }}</td></tr>
{%- endif %}
<tr><td style="padding:6px 0 0 0;border-top:2px solid #2450d4;font-weight:bold;color:#2450d4">{{ org.name }}</td></tr>
{%- if user.phone != blank %}
<tr><td style="padding:2px 0 0 0">Phone: {{ user.phone }}</td></tr>
{%- endif %}
{%- if user.mobile != blank %}
<tr><td style="padding:2px 0 0 0">Mobile: {{ user.mobile }}</td></tr>
{%- endif %}
<tr><td style="padding:2px 0 0 0"><a href="mailto:{{ user.email }}" style="color:#2450d4;text-decoration:none">{{ user.email }}</a></td></tr>
<tr><td>${PIXEL}</td></tr>
</table>`,
  text: `{{ user.name }}
{% if user.title != blank %}{{ user.title }}
{% endif %}{% if user.department != blank %}{{ user.department }}
{% endif %}{{ org.name }}
{% if user.phone != blank %}Phone: {{ user.phone }}
{% endif %}{% if user.mobile != blank %}Mobile: {{ user.mobile }}
{% endif %}{{ user.email }}`,
};

const compact: Starter = {
  starterId: 'compact',
  name: 'Compact (one line)',
  html: `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;font-family:Arial,Helvetica,sans-serif;font-size:12px;line-height:16px;color:#555555">
<tr><td><strong style="color:#1d2330">{{ user.name }}</strong>{% if user.title != blank %} | {{ user.title }}{% endif %} | {{ org.name }}{% if user.phone != blank %} | {{ user.phone }}{% endif %}${PIXEL}</td></tr>
</table>`,
  text: `{{ user.name }}{% if user.title != blank %} | {{ user.title }}{% endif %} | {{ org.name }}{% if user.phone != blank %} | {{ user.phone }}{% endif %}`,
};

const sidebar: Starter = {
  starterId: 'sidebar',
  name: 'Two columns',
  html: `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;font-family:Georgia,'Times New Roman',serif;font-size:13px;line-height:18px;color:#333333">
<tr>
<td width="140" valign="top" style="width:140px;padding:0 12px 0 0;border-right:3px solid #1d2330;font-size:15px;font-weight:bold;color:#1d2330">{{ org.name }}</td>
<td valign="top" style="padding:0 0 0 12px">
<span style="font-size:15px;font-weight:bold;color:#1d2330">{{ user.name }}</span><br />
{% if user.title != blank %}{{ user.title }}<br />{% endif %}{% if user.department != blank %}{{ user.department }}<br />{% endif %}{% if user.phone != blank %}T {{ user.phone }}<br />{% endif %}{% if user.mobile != blank %}M {{ user.mobile }}<br />{% endif %}<a href="mailto:{{ user.email }}" style="color:#1d2330">{{ user.email }}</a>${PIXEL}
</td>
</tr>
</table>`,
  text: `{{ user.name }}
{% if user.title != blank %}{{ user.title }}
{% endif %}{% if user.department != blank %}{{ user.department }}
{% endif %}{{ org.name }}
{% if user.phone != blank %}T {{ user.phone }}
{% endif %}{% if user.mobile != blank %}M {{ user.mobile }}
{% endif %}{{ user.email }}`,
};

export const STARTERS: readonly Starter[] = [classic, compact, sidebar];

/** The starter a new org gets as its default template. */
export const DEFAULT_STARTER = classic;

/** A page of the gallery; a cursor holds the index of the last starter of its page. */
export function listStarters(page: PageRequest): Page<Starter> {
  const after = decodeCursor(page.cursor);
  const start = after === undefined ? 0 : Number(after) + 1;
  const rows = STARTERS.slice(start, start + page.limit + 1).map((s, i) => ({ s, position: String(start + i) }));
  return toPage(rows, page.limit, (r) => r.position, (r): Starter => ({ ...r.s }));
}
