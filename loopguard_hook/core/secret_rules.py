"""Token shapes of known services, as data: gitleaks' rule set converted for Python's `re`.

Source: gitleaks config/gitleaks.toml at commit b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b, https://github.com/gitleaks/gitleaks.
MIT License, Copyright (c) 2019 Zachary Rice. The rules here are converted from it by tools/secret_rules_from_gitleaks.py; the licence text is in LICENSES/gitleaks.txt.
Written by `tools/secret_rules_from_gitleaks.py`; edit that tool, not this file.
"""

#: (lower-case keywords, pattern, group to mask), one per rule; `redact._data_rules` reads them.
RULES: tuple[tuple[tuple[str, ...], str, int], ...] = (
    (('a3-',), '\\bA3-[A-Z0-9]{6}-(?:(?:[A-Z0-9]{11})|(?:[A-Z0-9]{6}-[A-Z0-9]{5}))-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\\b', 0),  # 1password-secret-key
    (('ops_',), 'ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}', 0),  # 1password-service-account-token
    (('adafruit',), '(?i)[\\w.-]{0,50}?(?:adafruit)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9_-]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # adafruit-api-key
    (('adobe',), '(?i)[\\w.-]{0,50}?(?:adobe)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # adobe-client-id
    (('p8e-',), '(?i)\\b(p8e-[a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # adobe-client-secret
    (('age-secret-key-1',), 'AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}', 0),  # age-secret-key
    (('airtable',), '(?i)[\\w.-]{0,50}?(?:airtable)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{17})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # airtable-api-key
    (('airtable',), '\\b(pat[A-Za-z0-9]{14}\\.[a-f0-9]{64})\\b', 1),  # airtable-personnal-access-token
    (('algolia',), '(?i)[\\w.-]{0,50}?(?:algolia)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # algolia-api-key
    (('ltai',), '(?i)\\b(LTAI[a-z0-9]{20})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # alibaba-access-key-id
    (('alibaba',), '(?i)[\\w.-]{0,50}?(?:alibaba)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{30})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # alibaba-secret-key
    (('sk-ant-admin01',), '\\b(sk-ant-admin01-[a-zA-Z0-9_\\-]{93}AA)(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # anthropic-admin-api-key
    (('sk-ant-api03',), '\\b(sk-ant-api03-[a-zA-Z0-9_\\-]{93}AA)(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # anthropic-api-key
    (('akcp',), '\\bAKCp[A-Za-z0-9]{69}\\b', 0),  # artifactory-api-key
    (('cmvmd',), '\\bcmVmd[A-Za-z0-9]{59}\\b', 0),  # artifactory-reference-token
    (('asana',), '(?i)[\\w.-]{0,50}?(?:asana)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9]{16})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # asana-client-id
    (('asana',), '(?i)[\\w.-]{0,50}?(?:asana)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # asana-client-secret
    (('atatt3', 'atlassian', 'confluence', 'jira'), '(?i)[\\w.-]{0,50}?(?:(?-i:ATLASSIAN|[Aa]tlassian)|(?-i:CONFLUENCE|[Cc]onfluence)|(?-i:JIRA|[Jj]ira))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{20}[a-f0-9]{4})(?:[\\x60\'"\\s;]|\\\\|$)|\\b(ATATT3[A-Za-z0-9_\\-=]{186})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # atlassian-api-token
    (('authress_', 'ext_', 'sc_', 'scauth_'), '(?i)\\b((?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\\.[a-z0-9]{4,6}\\.(?-i:acc)[_-][a-z0-9-]{10,32}\\.[a-z0-9+/_=-]{30,120})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # authress-service-client-access-key
    (('a3t', 'abia', 'acca', 'akia', 'asia'), '\\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\\b', 1),  # aws-access-token
    (('absk',), '\\b(ABSK[A-Za-z0-9+/]{109,269}={0,2})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # aws-amazon-bedrock-api-key-long-lived
    (('bedrock-api-key-',), 'bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t', 0),  # aws-amazon-bedrock-api-key-short-lived
    (('q~',), '(?:^|[\\\\\'"\\x60\\s>=:(,)])([a-zA-Z0-9_~.]{3}\\dQ~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\\\\'"\\x60\\s<),])', 1),  # azure-ad-client-secret
    (('beamer',), '(?i)[\\w.-]{0,50}?(?:beamer)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(b_[a-z0-9=_\\-]{44})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # beamer-api-token
    (('bitbucket',), '(?i)[\\w.-]{0,50}?(?:bitbucket)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # bitbucket-client-id
    (('bitbucket',), '(?i)[\\w.-]{0,50}?(?:bitbucket)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # bitbucket-client-secret
    (('bittrex',), '(?i)[\\w.-]{0,50}?(?:bittrex)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # bittrex-access-key
    (('bittrex',), '(?i)[\\w.-]{0,50}?(?:bittrex)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # bittrex-secret-key
    (('meraki',), '[\\w.-]{0,50}?(?i:[\\w.-]{0,50}?(?:(?-i:[Mm]eraki|MERAKI))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # cisco-meraki-api-key
    (('4b1d',), '\\b(4b1d[A-Za-z0-9]{38})\\b', 1),  # clickhouse-cloud-api-secret-key
    (('clojars_',), '(?i)CLOJARS_[a-z0-9]{60}', 0),  # clojars-api-token
    (('cloudflare',), '(?i)[\\w.-]{0,50}?(?:cloudflare)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9_-]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # cloudflare-api-key
    (('cloudflare',), '(?i)[\\w.-]{0,50}?(?:cloudflare)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{37})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # cloudflare-global-api-key
    (('cloudflare', 'v1.0-'), '\\b(v1\\.0-[a-f0-9]{24}-[a-f0-9]{146})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # cloudflare-origin-ca-key
    (('codecov',), '(?i)[\\w.-]{0,50}?(?:codecov)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # codecov-access-token
    (('co_api_key', 'cohere'), '[\\w.-]{0,50}?(?i:[\\w.-]{0,50}?(?:cohere|CO_API_KEY)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # cohere-api-token
    (('coinbase',), '(?i)[\\w.-]{0,50}?(?:coinbase)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9_-]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # coinbase-access-token
    (('confluent',), '(?i)[\\w.-]{0,50}?(?:confluent)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{16})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # confluent-access-token
    (('confluent',), '(?i)[\\w.-]{0,50}?(?:confluent)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # confluent-secret-key
    (('contentful',), '(?i)[\\w.-]{0,50}?(?:contentful)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{43})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # contentful-delivery-api-token
    (('dapi',), '\\b(dapi[a-f0-9]{32}(?:-\\d)?)(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # databricks-api-token
    (('datadog',), '(?i)[\\w.-]{0,50}?(?:datadog)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # datadog-access-token
    (('dnkey',), '(?i)[\\w.-]{0,50}?(?:dnkey)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(dnkey-[a-z0-9=_\\-]{26}-[a-z0-9=_\\-]{52})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # defined-networking-api-token
    (('doo_v1_',), '\\b(doo_v1_[a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # digitalocean-access-token
    (('dop_v1_',), '\\b(dop_v1_[a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # digitalocean-pat
    (('dor_v1_',), '(?i)\\b(dor_v1_[a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # digitalocean-refresh-token
    (('discord',), '(?i)[\\w.-]{0,50}?(?:discord)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # discord-api-token
    (('discord',), '(?i)[\\w.-]{0,50}?(?:discord)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9]{18})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # discord-client-id
    (('discord',), '(?i)[\\w.-]{0,50}?(?:discord)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # discord-client-secret
    (('dp.pt.',), '(?i)dp\\.pt\\.[a-z0-9]{43}', 0),  # doppler-api-token
    (('droneci',), '(?i)[\\w.-]{0,50}?(?:droneci)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # droneci-access-token
    (('dropbox',), '(?i)[\\w.-]{0,50}?(?:dropbox)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{15})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # dropbox-api-token
    (('dropbox',), '(?i)[\\w.-]{0,50}?(?:dropbox)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{11}(AAAAAAAAAA)[a-z0-9\\-_=]{43})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # dropbox-long-lived-api-token
    (('dropbox',), '(?i)[\\w.-]{0,50}?(?:dropbox)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(sl\\.[a-z0-9\\-=_]{135})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # dropbox-short-lived-api-token
    (('duffel_',), '(?i)duffel_(?:test|live)_[a-z0-9_\\-=]{43}', 0),  # duffel-api-token
    (('dt0c01.',), '(?i)dt0c01\\.[a-z0-9]{24}\\.[a-z0-9]{64}', 0),  # dynatrace-api-token
    (('ezak',), '(?i)\\bEZAK[a-z0-9]{54}\\b', 0),  # easypost-api-token
    (('eztk',), '(?i)\\bEZTK[a-z0-9]{54}\\b', 0),  # easypost-test-api-token
    (('etsy',), '(?i)[\\w.-]{0,50}?(?:(?-i:ETSY|[Ee]tsy))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{24})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # etsy-access-token
    (('facebook',), '(?i)\\b(\\d{15,16}(\\||%)[0-9a-z\\-_]{27,40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # facebook-access-token
    (('eaac', 'eaam'), '(?i)\\b(EAA[MC][a-z0-9]{100,})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # facebook-page-access-token
    (('facebook',), '(?i)[\\w.-]{0,50}?(?:facebook)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # facebook-secret
    (('fastly',), '(?i)[\\w.-]{0,50}?(?:fastly)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # fastly-api-token
    (('finicity',), '(?i)[\\w.-]{0,50}?(?:finicity)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # finicity-api-token
    (('finicity',), '(?i)[\\w.-]{0,50}?(?:finicity)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{20})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # finicity-client-secret
    (('finnhub',), '(?i)[\\w.-]{0,50}?(?:finnhub)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{20})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # finnhub-access-token
    (('flickr',), '(?i)[\\w.-]{0,50}?(?:flickr)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # flickr-access-token
    (('flwseck_test',), '(?i)FLWSECK_TEST-[a-h0-9]{12}', 0),  # flutterwave-encryption-key
    (('flwpubk_test',), '(?i)FLWPUBK_TEST-[a-h0-9]{32}-X', 0),  # flutterwave-public-key
    (('flwseck_test',), '(?i)FLWSECK_TEST-[a-h0-9]{32}-X', 0),  # flutterwave-secret-key
    (('fm1', 'fm2_', 'fo1_'), '\\b((?:fo1_[\\w-]{43}|fm1[ar]_[a-zA-Z0-9+\\/]{100,}={0,3}|fm2_[a-zA-Z0-9+\\/]{100,}={0,3}))(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # flyio-access-token
    (('fio-u-',), '(?i)fio-u-[a-z0-9\\-_=]{64}', 0),  # frameio-api-token
    (('secret_key',), '(?i)["\']secret_key["\']\\s*=>\\s*["\'](sk_[\\S]{29})["\']', 1),  # freemius-secret-key
    (('freshbooks',), '(?i)[\\w.-]{0,50}?(?:freshbooks)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # freshbooks-access-token
    (('aiza',), '\\b(AIza[\\w-]{35})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # gcp-api-key
    (('ghs_', 'ghu_'), '(?:ghu|ghs)_[0-9a-zA-Z]{36}', 0),  # github-app-token
    (('github_pat_',), 'github_pat_\\w{82}', 0),  # github-fine-grained-pat
    (('gho_',), 'gho_[0-9a-zA-Z]{36}', 0),  # github-oauth
    (('ghp_',), 'ghp_[0-9a-zA-Z]{36}', 0),  # github-pat
    (('ghr_',), 'ghr_[0-9a-zA-Z]{36}', 0),  # github-refresh-token
    (('glcbt-',), 'glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z_-]{20}', 0),  # gitlab-cicd-job-token
    (('gldt-',), 'gldt-[0-9a-zA-Z_\\-]{20}', 0),  # gitlab-deploy-token
    (('glffct-',), 'glffct-[0-9a-zA-Z_\\-]{20}', 0),  # gitlab-feature-flag-client-token
    (('glft-',), 'glft-[0-9a-zA-Z_\\-]{20}', 0),  # gitlab-feed-token
    (('glimt-',), 'glimt-[0-9a-zA-Z_\\-]{25}', 0),  # gitlab-incoming-mail-token
    (('glagent-',), 'glagent-[0-9a-zA-Z_\\-]{50}', 0),  # gitlab-kubernetes-agent-token
    (('gloas-',), 'gloas-[0-9a-zA-Z_\\-]{64}', 0),  # gitlab-oauth-app-secret
    (('glpat-',), 'glpat-[\\w-]{20}', 0),  # gitlab-pat
    (('glpat-',), '\\bglpat-[0-9a-zA-Z_-]{27,300}\\.[0-9a-z]{2}[0-9a-z]{7}\\b', 0),  # gitlab-pat-routable
    (('glptt-',), 'glptt-[0-9a-f]{40}', 0),  # gitlab-ptt
    (('gr1348941',), 'GR1348941[\\w-]{20}', 0),  # gitlab-rrt
    (('glrt-',), 'glrt-[0-9a-zA-Z_\\-]{20}', 0),  # gitlab-runner-authentication-token
    (('glrt-',), '\\bglrt-t\\d_[0-9a-zA-Z_\\-]{27,300}\\.[0-9a-z]{2}[0-9a-z]{7}\\b', 0),  # gitlab-runner-authentication-token-routable
    (('glsoat-',), 'glsoat-[0-9a-zA-Z_\\-]{20}', 0),  # gitlab-scim-token
    (('_gitlab_session=',), '_gitlab_session=[0-9a-z]{32}', 0),  # gitlab-session-cookie
    (('gitter',), '(?i)[\\w.-]{0,50}?(?:gitter)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9_-]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # gitter-access-token
    (('gocardless', 'live_'), '(?i)[\\w.-]{0,50}?(?:gocardless)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(live_[a-z0-9\\-_=]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # gocardless-api-token
    (('eyjrijoi',), '(?i)\\b(eyJrIjoi[A-Za-z0-9]{70,400}={0,3})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # grafana-api-key
    (('glc_',), '(?i)\\b(glc_[A-Za-z0-9+/]{32,400}={0,3})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # grafana-cloud-api-token
    (('glsa_',), '(?i)\\b(glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # grafana-service-account-token
    (('pat.', 'sat.'), '(?:pat|sat)\\.[a-zA-Z0-9_-]{22}\\.[a-zA-Z0-9]{24}\\.[a-zA-Z0-9]{20}', 0),  # harness-api-key
    (('atlasv1',), '(?i)[a-z0-9]{14}\\.(?-i:atlasv1)\\.[a-z0-9\\-_=]{60,70}', 0),  # hashicorp-tf-api-token
    (('administrator_login_password', 'password'), '(?i)[\\w.-]{0,50}?(?:administrator_login_password|password)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}("[a-z0-9=_\\-]{8,20}")(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # hashicorp-tf-password
    (('heroku',), '(?i)[\\w.-]{0,50}?(?:heroku)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # heroku-api-key
    (('hrku-aa',), '\\b((HRKU-AA[0-9a-zA-Z_-]{58}))(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # heroku-api-key-v2
    (('hubspot',), '(?i)[\\w.-]{0,50}?(?:hubspot)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # hubspot-api-key
    (('hf_',), '\\b(hf_(?i:[a-z]{34}))(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # huggingface-access-token
    (('api_org_',), '\\b(api_org_(?i:[a-z]{34}))(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # huggingface-organization-api-token
    (('ico-',), '\\b(ico-[a-zA-Z0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # infracost-api-token
    (('intercom',), '(?i)[\\w.-]{0,50}?(?:intercom)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{60})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # intercom-api-key
    (('intra', 's-s4t2af-', 's-s4t2ud-'), '(?i)\\b(s-s4t2(?:ud|af)-[abcdef0123456789]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # intra42-client-secret
    (('artifactory', 'bintray', 'jfrog', 'xray'), '(?i)[\\w.-]{0,50}?(?:jfrog|artifactory|bintray|xray)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{73})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # jfrog-api-key
    (('artifactory', 'bintray', 'jfrog', 'xray'), '(?i)[\\w.-]{0,50}?(?:jfrog|artifactory|bintray|xray)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # jfrog-identity-token
    (('ey',), '\\b(ey[a-zA-Z0-9]{17,}\\.ey[a-zA-Z0-9\\/\\\\_-]{17,}\\.(?:[a-zA-Z0-9\\/\\\\_-]{10,}={0,2})?)(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # jwt
    (('zxlk',), '\\bZXlK(?:(?P<alg>aGJHY2lPaU)|(?P<apu>aGNIVWlPaU)|(?P<apv>aGNIWWlPaU)|(?P<aud>aGRXUWlPaU)|(?P<b64>aU5qUWlP)|(?P<crit>amNtbDBJanBi)|(?P<cty>amRIa2lPaU)|(?P<epk>bGNHc2lPbn)|(?P<enc>bGJtTWlPaU)|(?P<jku>cWEzVWlPaU)|(?P<jwk>cWQyc2lPb)|(?P<iss>cGMzTWlPaU)|(?P<iv>cGRpSTZJ)|(?P<kid>cmFXUWlP)|(?P<key_ops>clpYbGZiM0J6SWpwY)|(?P<kty>cmRIa2lPaUp)|(?P<nonce>dWIyNWpaU0k2)|(?P<p2c>d01tTWlP)|(?P<p2s>d01uTWlPaU)|(?P<ppt>d2NIUWlPaU)|(?P<sub>emRXSWlPaU)|(?P<svt>emRuUWlP)|(?P<tag>MFlXY2lPaU)|(?P<typ>MGVYQWlPaUp)|(?P<url>MWNtd2l)|(?P<use>MWMyVWlPaUp)|(?P<ver>MlpYSWlPaU)|(?P<version>MlpYSnphVzl1SWpv)|(?P<x>NElqb2)|(?P<x5c>NE5XTWlP)|(?P<x5t>NE5YUWlPaU)|(?P<x5ts256>NE5YUWpVekkxTmlJNkl)|(?P<x5u>NE5YVWlPaU)|(?P<zip>NmFYQWlPaU))[a-zA-Z0-9\\/\\\\_+\\-\\r\\n]{40,}={0,2}', 1),  # jwt-base64
    (('kraken',), '(?i)[\\w.-]{0,50}?(?:kraken)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9\\/=_\\+\\-]{80,90})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # kraken-access-token
    (('secret',), '(?i)(?:\\bkind:[ \\t]*["\']?\\bsecret\\b["\']?(?s:.){0,200}?\\bdata:(?s:.){0,100}?\\s+([\\w.-]+:(?:[ \\t]*(?:\\||>[-+]?)\\s+)?[ \\t]*(?:["\']?[a-z0-9+/]{10,}={0,3}["\']?|\\{\\{[ \\t\\w"|$:=,.-]+}}|""|\'\'))|\\bdata:(?s:.){0,100}?\\s+([\\w.-]+:(?:[ \\t]*(?:\\||>[-+]?)\\s+)?[ \\t]*(?:["\']?[a-z0-9+/]{10,}={0,3}["\']?|\\{\\{[ \\t\\w"|$:=,.-]+}}|""|\'\'))(?s:.){0,200}?\\bkind:[ \\t]*["\']?\\bsecret\\b["\']?)', 1),  # kubernetes-secret-yaml
    (('kucoin',), '(?i)[\\w.-]{0,50}?(?:kucoin)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{24})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # kucoin-access-token
    (('kucoin',), '(?i)[\\w.-]{0,50}?(?:kucoin)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # kucoin-secret-key
    (('launchdarkly',), '(?i)[\\w.-]{0,50}?(?:launchdarkly)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # launchdarkly-access-token
    (('lin_api_',), '(?i)lin_api_[a-z0-9]{40}', 0),  # linear-api-key
    (('linear',), '(?i)[\\w.-]{0,50}?(?:linear)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # linear-client-secret
    (('linked-in', 'linked_in', 'linkedin'), '(?i)[\\w.-]{0,50}?(?:linked[_-]?in)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{14})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # linkedin-client-id
    (('linked-in', 'linked_in', 'linkedin'), '(?i)[\\w.-]{0,50}?(?:linked[_-]?in)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{16})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # linkedin-client-secret
    (('live_', 'test_'), '(?i)[\\w.-]{0,50}?(?:lob)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}((live|test)_[a-f0-9]{35})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # lob-api-key
    (('_pub', 'live_pub', 'test_pub'), '(?i)[\\w.-]{0,50}?(?:lob)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}((test|live)_pub_[a-f0-9]{31})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # lob-pub-api-key
    (('looker',), '(?i)[\\w.-]{0,50}?(?:looker)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{20})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # looker-client-id
    (('looker',), '(?i)[\\w.-]{0,50}?(?:looker)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{24})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # looker-client-secret
    (('mailchimp',), '(?i)[\\w.-]{0,50}?(?:MailchimpSDK.initialize|mailchimp)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{32}-us\\d\\d)(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # mailchimp-api-key
    (('mailgun',), '(?i)[\\w.-]{0,50}?(?:mailgun)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(key-[a-f0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # mailgun-private-api-token
    (('mailgun',), '(?i)[\\w.-]{0,50}?(?:mailgun)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(pubkey-[a-f0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # mailgun-pub-key
    (('mailgun',), '(?i)[\\w.-]{0,50}?(?:mailgun)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # mailgun-signing-key
    (('mapbox',), '(?i)[\\w.-]{0,50}?(?:mapbox)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(pk\\.[a-z0-9]{60}\\.[a-z0-9]{22})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # mapbox-api-token
    (('mattermost',), '(?i)[\\w.-]{0,50}?(?:mattermost)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{26})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # mattermost-access-token
    (('_mmk',), '\\b([A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # maxmind-license-key
    (('message-bird', 'message_bird', 'messagebird'), '(?i)[\\w.-]{0,50}?(?:message[_-]?bird)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{25})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # messagebird-api-token
    (('message-bird', 'message_bird', 'messagebird'), '(?i)[\\w.-]{0,50}?(?:message[_-]?bird)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # messagebird-client-id
    (('incomingwebhook', 'webhook.office.com', 'webhookb2'), 'https://[a-z0-9]+\\.webhook\\.office\\.com/webhookb2/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}', 1),  # microsoft-teams-webhook
    (('netlify',), '(?i)[\\w.-]{0,50}?(?:netlify)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{40,46})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # netlify-access-token
    (('nrjs-',), '(?i)[\\w.-]{0,50}?(?:new-relic|newrelic|new_relic)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(NRJS-[a-f0-9]{19})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # new-relic-browser-api-token
    (('nrii-',), '(?i)[\\w.-]{0,50}?(?:new-relic|newrelic|new_relic)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(NRII-[a-z0-9-]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # new-relic-insert-key
    (('new-relic', 'new_relic', 'newrelic'), '(?i)[\\w.-]{0,50}?(?:new-relic|newrelic|new_relic)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # new-relic-user-api-id
    (('nrak',), '(?i)[\\w.-]{0,50}?(?:new-relic|newrelic|new_relic)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(NRAK-[a-z0-9]{27})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # new-relic-user-api-key
    (('ntn_',), '\\b(ntn_[0-9]{11}[A-Za-z0-9]{32}[A-Za-z0-9]{3})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # notion-api-token
    (('npm_',), '(?i)\\b(npm_[a-z0-9]{36})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # npm-access-token
    (('<add key=',), '(?i)<add key=\\"(?:(?:ClearText)?Password)\\"\\s*value=\\"(.{8,})\\"\\s*/>', 1),  # nuget-config-password
    (('new-york-times', 'newyorktimes', 'nytimes'), '(?i)[\\w.-]{0,50}?(?:nytimes|new-york-times,|newyorktimes)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9=_\\-]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # nytimes-access-token
    (('api-',), '\\b(API-[A-Z0-9]{26})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # octopus-deploy-api-key
    (('okta',), '[\\w.-]{0,50}?(?i:[\\w.-]{0,50}?(?:(?-i:[Oo]kta|OKTA))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(00[\\w=\\-]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # okta-access-token
    (('t3blbkfj',), '\\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # openai-api-key
    (('sha256~',), '\\b(sha256~[\\w-]{43})(?:[^\\w-]|\\Z)', 1),  # openshift-user-token
    (('pplx-',), '\\b(pplx-[a-zA-Z0-9]{48})(?:[\\x60\'"\\s;]|\\\\|$|\\b)', 1),  # perplexity-api-key
    (('plaid',), '(?i)[\\w.-]{0,50}?(?:plaid)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # plaid-api-token
    (('plaid',), '(?i)[\\w.-]{0,50}?(?:plaid)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{24})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # plaid-client-id
    (('plaid',), '(?i)[\\w.-]{0,50}?(?:plaid)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{30})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # plaid-secret-key
    (('pscale_tkn_',), '(?i)\\b(pscale_tkn_[\\w=\\.-]{32,64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # planetscale-api-token
    (('pscale_oauth_',), '\\b(pscale_oauth_[\\w=\\.-]{32,64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # planetscale-oauth-token
    (('pscale_pw_',), '(?i)\\b(pscale_pw_[\\w=\\.-]{32,64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # planetscale-password
    (('pmak-',), '(?i)\\b(PMAK-[a-f0-9]{24}\\-[a-f0-9]{34})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # postman-api-token
    (('pnu_',), '\\b(pnu_[a-zA-Z0-9]{36})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # prefect-api-token
    (('-----begin',), '(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\\s\\S-]{64,}?KEY(?: BLOCK)?-----', 0),  # private-key
    (('private-ai', 'private_ai', 'privateai'), '[\\w.-]{0,50}?(?i:[\\w.-]{0,50}?(?:private[_-]?ai)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # privateai-api-token
    (('pul-',), '\\b(pul-[a-f0-9]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # pulumi-api-token
    (('pypi-ageichlwas5vcmc',), 'pypi-AgEIcHlwaS5vcmc[\\w-]{50,1000}', 0),  # pypi-upload-token
    (('rapidapi',), '(?i)[\\w.-]{0,50}?(?:rapidapi)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9_-]{50})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # rapidapi-access-token
    (('rdme_',), '\\b(rdme_[a-z0-9]{70})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # readme-api-token
    (('rubygems_',), '\\b(rubygems_[a-f0-9]{48})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # rubygems-api-token
    (('tk-us-',), '\\b(tk-us-[\\w-]{48})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # scalingo-api-token
    (('sendbird',), '(?i)[\\w.-]{0,50}?(?:sendbird)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # sendbird-access-id
    (('sendbird',), '(?i)[\\w.-]{0,50}?(?:sendbird)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # sendbird-access-token
    (('sg.',), '(?i)\\b(SG\\.[a-z0-9=_\\-\\.]{66})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # sendgrid-api-token
    (('xkeysib-',), '(?i)\\b(xkeysib-[a-f0-9]{64}\\-[a-z0-9]{16})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # sendinblue-api-token
    (('sentry',), '(?i)[\\w.-]{0,50}?(?:sentry)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # sentry-access-token
    (('sntrys_eyjpyxqio',), '\\bsntrys_eyJpYXQiO[a-zA-Z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[a-zA-Z0-9+/]{10,200}={0,2}_[a-zA-Z0-9+/]{43}(?:[^a-zA-Z0-9+/]|\\Z)', 0),  # sentry-org-token
    (('sntryu_',), '\\b(sntryu_[a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # sentry-user-token
    (('sm_aat',), '\\b(sm_aat_[a-zA-Z0-9]{16})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # settlemint-application-access-token
    (('sm_pat',), '\\b(sm_pat_[a-zA-Z0-9]{16})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # settlemint-personal-access-token
    (('sm_sat',), '\\b(sm_sat_[a-zA-Z0-9]{16})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # settlemint-service-access-token
    (('shippo_',), '\\b(shippo_(?:live|test)_[a-fA-F0-9]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # shippo-api-token
    (('shpat_',), 'shpat_[a-fA-F0-9]{32}', 0),  # shopify-access-token
    (('shpca_',), 'shpca_[a-fA-F0-9]{32}', 0),  # shopify-custom-access-token
    (('shppa_',), 'shppa_[a-fA-F0-9]{32}', 0),  # shopify-private-app-access-token
    (('shpss_',), 'shpss_[a-fA-F0-9]{32}', 0),  # shopify-shared-secret
    (('bundle_enterprise__contribsys__com', 'bundle_gems__contribsys__com'), '(?i)[\\w.-]{0,50}?(?:BUNDLE_ENTERPRISE__CONTRIBSYS__COM|BUNDLE_GEMS__CONTRIBSYS__COM)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-f0-9]{8}:[a-f0-9]{8})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # sidekiq-secret
    (('enterprise.contribsys.com', 'gems.contribsys.com'), '(?i)\\bhttps?://([a-f0-9]{8}:[a-f0-9]{8})@(?:gems.contribsys.com|enterprise.contribsys.com)(?:[\\/|\\#|\\?|:]|$)', 1),  # sidekiq-sensitive-url
    (('xapp',), '(?i)xapp-\\d-[A-Z0-9]+-\\d+-[a-z0-9]+', 0),  # slack-app-token
    (('xoxb',), 'xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*', 0),  # slack-bot-token
    (('xoxe.xoxb-', 'xoxe.xoxp-'), '(?i)xoxe.xox[bp]-\\d-[A-Z0-9]{163,166}', 0),  # slack-config-access-token
    (('xoxe-',), '(?i)xoxe-\\d-[A-Z0-9]{146}', 0),  # slack-config-refresh-token
    (('xoxb',), 'xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}', 0),  # slack-legacy-bot-token
    (('xoxo', 'xoxs'), 'xox[os]-\\d+-\\d+-\\d+-[a-fA-F\\d]+', 0),  # slack-legacy-token
    (('xoxa', 'xoxr'), 'xox[ar]-(?:\\d-)?[0-9a-zA-Z]{8,48}', 0),  # slack-legacy-workspace-token
    (('xoxe-', 'xoxp-'), 'xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}', 0),  # slack-user-token
    (('hooks.slack.com',), '(?:https?://)?hooks.slack.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}', 0),  # slack-webhook-url
    (('snyk',), '(?i)[\\w.-]{0,50}?(?:snyk[_.-]?(?:(?:api|oauth)[_.-]?)?(?:key|token))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # snyk-api-token
    (('sonar',), '(?i)[\\w.-]{0,50}?(?:sonar[_.-]?(login|token))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}((?:squ_|sqp_|sqa_)?[a-z0-9=_\\-]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 2),  # sonar-api-token
    (('sgp_', 'sourcegraph'), '(?i)\\b(\\b(sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40}|[a-fA-F0-9]{40})\\b)(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # sourcegraph-access-token
    (('eaaa', 'sq0atp-'), '\\b((?:EAAA|sq0atp-)[\\w-]{22,60})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # square-access-token
    (('squarespace',), '(?i)[\\w.-]{0,50}?(?:squarespace)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # squarespace-access-token
    (('rk_live', 'rk_prod', 'rk_test', 'sk_live', 'sk_prod', 'sk_test'), '\\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # stripe-access-token
    (('sumo',), '[\\w.-]{0,50}?(?i:[\\w.-]{0,50}?(?:(?-i:[Ss]umo|SUMO))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(su[a-zA-Z0-9]{12})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # sumologic-access-id
    (('sumo',), '(?i)[\\w.-]{0,50}?(?:(?-i:[Ss]umo|SUMO))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{64})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # sumologic-access-token
    (('telegr',), '(?i)[\\w.-]{0,50}?(?:telegr)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9]{5,16}:(?-i:A)[a-z0-9_\\-]{34})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # telegram-bot-api-token
    (('travis',), '(?i)[\\w.-]{0,50}?(?:travis)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{22})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # travisci-access-token
    (('sk',), 'SK[0-9a-fA-F]{32}', 0),  # twilio-api-key
    (('twitch',), '(?i)[\\w.-]{0,50}?(?:twitch)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{30})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # twitch-api-token
    (('twitter',), '(?i)[\\w.-]{0,50}?(?:twitter)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{45})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # twitter-access-secret
    (('twitter',), '(?i)[\\w.-]{0,50}?(?:twitter)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9]{15,25}-[a-zA-Z0-9]{20,40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # twitter-access-token
    (('twitter',), '(?i)[\\w.-]{0,50}?(?:twitter)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{25})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # twitter-api-key
    (('twitter',), '(?i)[\\w.-]{0,50}?(?:twitter)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{50})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # twitter-api-secret
    (('twitter',), '(?i)[\\w.-]{0,50}?(?:twitter)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(A{22}[a-zA-Z0-9%]{80,100})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # twitter-bearer-token
    (('tfp_',), '(?i)[\\w.-]{0,50}?(?:typeform)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(tfp_[a-z0-9\\-_\\.=]{59})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # typeform-api-token
    (('hvb.',), '\\b(hvb\\.[\\w-]{138,300})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # vault-batch-token
    (('hvs.', 's.'), '\\b((?:hvs\\.[\\w-]{90,120}|s\\.(?i:[a-z0-9]{24})))(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # vault-service-token
    (('yandex',), '(?i)[\\w.-]{0,50}?(?:yandex)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(t1\\.[A-Z0-9a-z_-]+[=]{0,2}\\.[A-Z0-9a-z_-]{86}[=]{0,2})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # yandex-access-token
    (('yandex',), '(?i)[\\w.-]{0,50}?(?:yandex)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(AQVN[A-Za-z0-9_\\-]{35,38})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # yandex-api-key
    (('yandex',), '(?i)[\\w.-]{0,50}?(?:yandex)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(YC[a-zA-Z0-9_\\-]{38})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # yandex-aws-access-token
    (('zendesk',), '(?i)[\\w.-]{0,50}?(?:zendesk)(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{40})(?:[\\x60\'"\\s;]|\\\\|$)', 1),  # zendesk-secret-key
)
