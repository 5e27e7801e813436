{{- /*
STAND-IN for the upstream GAIE inferencepool chart v1.2.0; implements only the keys in values.yaml.
Production uses the upstream chart.
*/ -}}

{{- /* EPP name: <release, at most 40 chars>-epp, as upstream. */ -}}
{{- define "standin.eppName" -}}
{{- printf "%s-epp" (.Release.Name | lower | trim | trunc 40) -}}
{{- end -}}

{{- define "standin.labels" -}}
app.kubernetes.io/name: {{ include "standin.eppName" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{- define "standin.selectorLabels" -}}
inferencepool: {{ include "standin.eppName" . }}
{{- end -}}
