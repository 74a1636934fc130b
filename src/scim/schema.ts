/** What this SCIM service provider supports, as RFC 7643 sections 5-7 describe the discovery resources. */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

export const SERVICE_PROVIDER_CONFIG = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
  documentationUri: 'https://github.com/scanyard/scanyard#scim-provisioning',
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: 200 },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [{
    type: 'oauthbearertoken', name: 'OAuth Bearer Token', primary: true,
    description: 'The organisation\'s SCIM token, from POST /api/v1/orgs/{id}/scim-token, as "Authorization: Bearer <token>".',
  }],
};

export const RESOURCE_TYPES = [{
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
  id: 'User', name: 'User', endpoint: '/Users', description: 'A person provisioned into the organisation', schema: USER_SCHEMA,
  meta: { resourceType: 'ResourceType', location: '/scim/v2/ResourceTypes/User' },
}, {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
  id: 'Group', name: 'Group', endpoint: '/Groups', description: 'A team of the organisation, provisioned with its members', schema: GROUP_SCHEMA,
  meta: { resourceType: 'ResourceType', location: '/scim/v2/ResourceTypes/Group' },
}];

const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name, type, multiValued: false, required: false, caseExact: false, mutability: 'readWrite', returned: 'default', uniqueness: 'none', ...extra,
});

/** The attributes of the core User and Group schemas this service keeps; others are accepted and ignored. */
export const SCHEMAS = [{
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
  id: USER_SCHEMA, name: 'User', description: 'User Account',
  attributes: [
    attribute('userName', 'string', { required: true, uniqueness: 'server' }),
    attribute('displayName', 'string'),
    attribute('name', 'complex', { subAttributes: [attribute('formatted', 'string'), attribute('givenName', 'string'), attribute('familyName', 'string')] }),
    attribute('emails', 'complex', { multiValued: true, subAttributes: [attribute('value', 'string'), attribute('type', 'string'), attribute('primary', 'boolean')] }),
    attribute('active', 'boolean'),
    attribute('externalId', 'string', { caseExact: true }),
  ],
  meta: { resourceType: 'Schema', location: `/scim/v2/Schemas/${USER_SCHEMA}` },
}, {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
  id: GROUP_SCHEMA, name: 'Group', description: 'Group',
  attributes: [
    // A team's name is unique in its organisation, ignoring case.
    attribute('displayName', 'string', { required: true, uniqueness: 'server' }),
    attribute('members', 'complex', {
      multiValued: true,
      subAttributes: [
        attribute('value', 'string', { mutability: 'immutable', caseExact: true }),
        attribute('display', 'string', { mutability: 'readOnly' }),
        attribute('$ref', 'reference', { mutability: 'immutable', referenceTypes: ['User'] }),
      ],
    }),
    attribute('externalId', 'string', { caseExact: true }),
  ],
  meta: { resourceType: 'Schema', location: `/scim/v2/Schemas/${GROUP_SCHEMA}` },
}];
