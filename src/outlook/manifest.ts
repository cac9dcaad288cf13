// The org's add-in-only (XML) manifest, after Microsoft's outlook-set-signature sample
// (OfficeDev/Office-Add-in-samples): VersionOverrides 1.1 with a runtime for event-based
// activation (an HTML page for Outlook on the web, Mac and new Outlook; its JavaScript file alone
// for classic Outlook on Windows), launch events for new messages, new meetings and a changed
// From, and a compose button that inserts the signature again. Every URL is absolute under
// BASE_URL and carries the org's add-in key, the only way the runtime learns it.

export interface ManifestInput {
  /** The add-in's id: the org's id (a GUID, stable across key rotations). */
  addinId: string;
  /** `1.0.<key version>.0`: a rotation is an update of the same add-in. */
  keyVersion: number;
  orgName: string;
  baseUrl: string;
  supportUrl: string;
  addinKey: string;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

export const LAUNCH_EVENTS = [
  { type: 'OnNewMessageCompose', functionName: 'onNewMessageComposeHandler' },
  { type: 'OnNewAppointmentOrganizer', functionName: 'onNewAppointmentOrganizerHandler' },
  { type: 'OnMessageFromChanged', functionName: 'onMessageFromChangedHandler' },
] as const;

export const ICON_SIZES = [16, 32, 64, 80, 128] as const;

/** Where the add-in's files are served; the manifest and the tests share these. */
export function addinUrls(baseUrl: string, addinKey?: string) {
  const q = addinKey ? `?key=${encodeURIComponent(addinKey)}` : '';
  return {
    runtimeHtml: `${baseUrl}/addin/commands.html${q}`,
    runtimeJs: `${baseUrl}/addin/runtime.js${q}`,
    icon: (size: number) => `${baseUrl}/addin/icon-${size}.png`,
    allowed: `${baseUrl}/.well-known/microsoft-officeaddins-allowed.json`,
  };
}

export function buildManifest(input: ManifestInput): string {
  const urls = addinUrls(input.baseUrl, input.addinKey);
  const origin = new URL(input.baseUrl).origin;
  const name = `Email signatures – ${input.orgName}`.slice(0, 125);
  return `<?xml version="1.0" encoding="UTF-8"?>
<OfficeApp xmlns="http://schemas.microsoft.com/office/appforoffice/1.1"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:bt="http://schemas.microsoft.com/office/officeappbasictypes/1.0"
  xmlns:mailappor="http://schemas.microsoft.com/office/mailappversionoverrides/1.0"
  xsi:type="MailApp">
  <Id>${xml(input.addinId)}</Id>
  <Version>1.0.${input.keyVersion}.0</Version>
  <ProviderName>Signature Service</ProviderName>
  <DefaultLocale>en-US</DefaultLocale>
  <DisplayName DefaultValue="${xml(name)}"/>
  <Description DefaultValue="Inserts each sender's email signature, managed by their organisation, when they write a message or a meeting."/>
  <IconUrl DefaultValue="${xml(urls.icon(64))}"/>
  <HighResolutionIconUrl DefaultValue="${xml(urls.icon(128))}"/>
  <SupportUrl DefaultValue="${xml(input.supportUrl)}"/>
  <AppDomains>
    <AppDomain>${xml(origin)}</AppDomain>
  </AppDomains>
  <Hosts>
    <Host Name="Mailbox"/>
  </Hosts>
  <Requirements>
    <Sets>
      <Set Name="Mailbox" MinVersion="1.1"/>
    </Sets>
  </Requirements>
  <FormSettings>
    <Form xsi:type="ItemRead">
      <DesktopSettings>
        <SourceLocation DefaultValue="${xml(urls.runtimeHtml)}"/>
        <RequestedHeight>250</RequestedHeight>
      </DesktopSettings>
    </Form>
  </FormSettings>
  <Permissions>ReadWriteItem</Permissions>
  <Rule xsi:type="RuleCollection" Mode="Or">
    <Rule xsi:type="ItemIs" ItemType="Message" FormType="Edit"/>
    <Rule xsi:type="ItemIs" ItemType="Appointment" FormType="Edit"/>
  </Rule>
  <DisableEntityHighlighting>false</DisableEntityHighlighting>
${versionOverrides(urls)}
</OfficeApp>
`;
}

/** The add-in commands (the compose button, the launch events) and their resources, for Outlook clients of requirement set 1.10. */
function versionOverrides(urls: ReturnType<typeof addinUrls>): string {
  const iconImages = [16, 32, 80].map((s) => `          <bt:Image size="${s}" resid="Icon.${s}x${s}"/>`).join('\n');
  return `  <VersionOverrides xmlns="http://schemas.microsoft.com/office/mailappversionoverrides" xsi:type="VersionOverridesV1_0">
    <VersionOverrides xmlns="http://schemas.microsoft.com/office/mailappversionoverrides/1.1" xsi:type="VersionOverridesV1_1">
      <Requirements>
        <bt:Sets DefaultMinVersion="1.10">
          <bt:Set Name="Mailbox"/>
        </bt:Sets>
      </Requirements>
      <Hosts>
        <Host xsi:type="MailHost">
          <Runtimes>
            <Runtime resid="WebViewRuntime.Url">
              <Override type="javascript" resid="JSRuntime.Url"/>
            </Runtime>
          </Runtimes>
          <DesktopFormFactor>
            <FunctionFile resid="WebViewRuntime.Url"/>
            <ExtensionPoint xsi:type="MessageComposeCommandSurface">
              <OfficeTab id="TabDefault">
                <Group id="sigsvcComposeGroup">
                  <Label resid="GroupLabel"/>
                  <Control xsi:type="Button" id="sigsvcInsertButton">
                    <Label resid="InsertLabel"/>
                    <Supertip>
                      <Title resid="InsertLabel"/>
                      <Description resid="InsertTooltip"/>
                    </Supertip>
                    <Icon>
${iconImages}
                    </Icon>
                    <Action xsi:type="ExecuteFunction">
                      <FunctionName>insertSignature</FunctionName>
                    </Action>
                  </Control>
                </Group>
              </OfficeTab>
            </ExtensionPoint>
            <ExtensionPoint xsi:type="LaunchEvent">
              <LaunchEvents>
${LAUNCH_EVENTS.map((e) => `                <LaunchEvent Type="${e.type}" FunctionName="${e.functionName}"/>`).join('\n')}
              </LaunchEvents>
              <SourceLocation resid="WebViewRuntime.Url"/>
            </ExtensionPoint>
          </DesktopFormFactor>
        </Host>
      </Hosts>
      <Resources>
        <bt:Images>
${[16, 32, 80].map((s) => `          <bt:Image id="Icon.${s}x${s}" DefaultValue="${xml(urls.icon(s))}"/>`).join('\n')}
        </bt:Images>
        <bt:Urls>
          <bt:Url id="WebViewRuntime.Url" DefaultValue="${xml(urls.runtimeHtml)}"/>
          <bt:Url id="JSRuntime.Url" DefaultValue="${xml(urls.runtimeJs)}"/>
        </bt:Urls>
        <bt:ShortStrings>
          <bt:String id="GroupLabel" DefaultValue="Signature"/>
          <bt:String id="InsertLabel" DefaultValue="Insert signature"/>
        </bt:ShortStrings>
        <bt:LongStrings>
          <bt:String id="InsertTooltip" DefaultValue="Inserts your organisation's signature for the address you send from."/>
        </bt:LongStrings>
      </Resources>
    </VersionOverrides>
  </VersionOverrides>`;
}
