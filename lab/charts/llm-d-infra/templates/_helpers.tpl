{{- /*
STAND-IN for the upstream llm-d-infra chart v1.3.0; implements only the keys in values.yaml.
Production uses the upstream chart.
*/ -}}

{{- /* Gateway name: fullnameOverride, else <release>-<nameOverride|inference-gateway>; 63 chars. */ -}}
{{- define "standin.gatewayName" -}}
{{- $name := .Values.gateway.fullnameOverride -}}
{{- if not $name -}}
{{- $name = printf "%s-%s" .Release.Name (.Values.gateway.nameOverride | default "inference-gateway") -}}
{{- end -}}
{{- $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "standin.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/gateway: {{ include "standin.gatewayName" . }}
app.kubernetes.io/component: inference-gateway
{{- end -}}

{{- define "standin.isIstio" -}}
{{- if eq .Values.gateway.gatewayClassName "istio" }}true{{ end -}}
{{- end -}}
