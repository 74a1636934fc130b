{{- define "scanyard.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}{{ .Release.Name | trunc 63 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "scanyard.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "scanyard.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "scanyard.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "scanyard.secretEnv" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ required (printf "secrets: a Secret name for %s is required" .env) .ref.name }}
      key: {{ .ref.key }}
{{- end -}}

{{/* The environment every container gets: settings from values, secrets by reference. */}}
{{- define "scanyard.env" -}}
{{ include "scanyard.secretEnv" (dict "env" "DATABASE_URL" "ref" .Values.secrets.databaseUrl) }}
{{ include "scanyard.secretEnv" (dict "env" "SERVICE_SESSION_SECRET" "ref" .Values.secrets.sessionSecret) }}
{{ include "scanyard.secretEnv" (dict "env" "SERVICE_METRICS_TOKEN" "ref" .Values.secrets.metricsToken) }}
{{- if .Values.secrets.providers.name }}
{{ include "scanyard.secretEnv" (dict "env" "SERVICE_PROVIDERS" "ref" .Values.secrets.providers) }}
{{- end }}
- name: SERVICE_BASE_URL
  value: {{ .Values.baseUrl | quote }}
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: SERVICE_RAW_RETENTION_DAYS
  value: {{ .Values.rawRetentionDays | quote }}
{{- if .Values.redisUrl }}
- name: REDIS_URL
  value: {{ .Values.redisUrl | quote }}
{{- end }}
{{- with .Values.objectStorage }}
{{- if .url }}
- name: SERVICE_BLOB_URL
  value: {{ .url | quote }}
{{- if .endpoint }}
- name: SERVICE_BLOB_ENDPOINT
  value: {{ .endpoint | quote }}
{{- end }}
{{- if .region }}
- name: AWS_REGION
  value: {{ .region | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- with .Values.secrets.objectStorageCredentials }}
{{- if .name }}
- name: AWS_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef: { name: {{ .name }}, key: {{ .accessKeyIdKey }} }
- name: AWS_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef: { name: {{ .name }}, key: {{ .secretAccessKeyKey }} }
{{- end }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The pod-level parts every workload shares. */}}
{{- define "scanyard.podSpec" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
{{ toYaml . | indent 2 }}
{{- end }}
securityContext:
{{ toYaml .Values.podSecurityContext | indent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector:
{{ toYaml . | indent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
{{ toYaml . | indent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
{{ toYaml . | indent 2 }}
{{- end }}
{{- end -}}
