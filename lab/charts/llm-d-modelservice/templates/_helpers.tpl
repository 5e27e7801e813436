{{- /*
STAND-IN for the upstream llm-d-modelservice chart v0.4.12 (templates/_helpers.tpl); implements only
the keys in values.yaml. Production uses the upstream chart.
*/ -}}

{{- /* fullname: fullnameOverride, else the release name if it contains the chart name (or
nameOverride), else <release>-<name>; 55 chars so that "-prefill" still fits in 63. */ -}}
{{- define "standin.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 55 | trimSuffix "-" -}}
{{- else -}}
{{- $name := .Values.nameOverride | default .Chart.Name -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 55 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 55 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "standin.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- /* Pod labels and Deployment selector. Context: dict root, role. */ -}}
{{- define "standin.podLabels" -}}
{{- $labels := merge (dict "llm-d.ai/role" .role) (.root.Values.modelArtifacts.labels | default dict) -}}
{{- toYaml $labels -}}
{{- end -}}

{{- define "standin.serviceAccountName" -}}
{{- .Values.serviceAccountOverride | default (include "standin.fullname" .) -}}
{{- end -}}

{{- /* modelArtifacts.uri split into protocol and rest: a dict as YAML. */ -}}
{{- define "standin.uri" -}}
{{- $uri := tpl .Values.modelArtifacts.uri . -}}
{{- if not (contains "://" $uri) -}}
{{- fail (printf "modelArtifacts.uri %q: expected hf://, pvc://, pvc+hf:// or oci://" $uri) -}}
{{- end -}}
{{- $parts := regexSplit "://" $uri 2 -}}
{{- toYaml (dict "protocol" (first $parts) "rest" (last $parts)) -}}
{{- end -}}

{{- /* The model argument for vllmServe/imageDefault. */ -}}
{{- define "standin.modelArg" -}}
{{- $uri := include "standin.uri" . | fromYaml -}}
{{- $segments := splitList "/" $uri.rest -}}
{{- if eq $uri.protocol "hf" -}}
{{- $uri.rest -}}
{{- else if eq $uri.protocol "pvc" -}}
{{- if lt (len $segments) 2 -}}
{{- fail (printf "modelArtifacts.uri pvc://%s: expected pvc://<claim>/<path to the model>" $uri.rest) -}}
{{- end -}}
{{- printf "%s/%s" (trimSuffix "/" .Values.modelArtifacts.mountPath) (rest $segments | join "/") -}}
{{- else if eq $uri.protocol "pvc+hf" -}}
{{- if lt (len $segments) 3 -}}
{{- fail (printf "modelArtifacts.uri pvc+hf://%s: expected pvc+hf://<claim>/<cache dir>/<org>/<name>" $uri.rest) -}}
{{- end -}}
{{- $n := len $segments -}}
{{- printf "%s/%s" (index $segments (sub $n 2)) (last $segments) -}}
{{- else if eq $uri.protocol "oci" -}}
{{- fail "modelArtifacts.uri oci://: the chart derives no model argument for oci:// (not implemented upstream either); use modelCommand: custom with your own command and args" -}}
{{- else -}}
{{- fail (printf "modelArtifacts.uri: unknown protocol %q (hf, pvc, pvc+hf, oci)" $uri.protocol) -}}
{{- end -}}
{{- end -}}

{{- /* The model-storage volume for the protocol of modelArtifacts.uri. */ -}}
{{- define "standin.modelVolume" -}}
{{- $uri := include "standin.uri" . | fromYaml -}}
{{- $art := .Values.modelArtifacts -}}
- name: model-storage
{{- if eq $uri.protocol "hf" }}
  emptyDir:
    sizeLimit: {{ $art.size | default "0" }}
{{- else if hasPrefix "pvc" $uri.protocol }}
  persistentVolumeClaim:
    claimName: {{ first (splitList "/" $uri.rest) }}
    readOnly: {{ $art.readOnly }}
{{- else if eq $uri.protocol "oci" }}
  image:
    reference: {{ $uri.rest }}
    pullPolicy: {{ $art.imagePullPolicy | default "Always" }}
{{- else }}
{{- fail (printf "modelArtifacts.uri: unknown protocol %q (hf, pvc, pvc+hf, oci)" $uri.protocol) }}
{{- end }}
{{- end -}}

{{- /* Port the model server of a role listens on. Context: dict root, role. */ -}}
{{- define "standin.serverPort" -}}
{{- $routing := .root.Values.routing -}}
{{- if or (eq .role "prefill") (not $routing.proxy.enabled) -}}
{{- $routing.servicePort | default 8000 -}}
{{- else -}}
{{- $routing.proxy.targetPort | default 8200 -}}
{{- end -}}
{{- end -}}

{{- /* command and args of a model container. Context: dict root, role, c. */ -}}
{{- define "standin.command" -}}
{{- $c := .c -}}
{{- $mode := $c.modelCommand | default "custom" -}}
{{- if eq $mode "custom" -}}
{{- if not $c.command -}}
{{- fail (printf "%s container %q: modelCommand is custom (the default), so command is required" .role ($c.name | default "vllm")) -}}
{{- end -}}
command:
  {{- toYaml $c.command | nindent 2 }}
{{- with $c.args }}
args:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- else if or (eq $mode "vllmServe") (eq $mode "imageDefault") -}}
{{- $model := include "standin.modelArg" .root -}}
{{- $args := list -}}
{{- if eq $mode "vllmServe" }}
command: ["vllm", "serve"]
{{- $args = list $model -}}
{{- else -}}
{{- $args = list "--model" $model -}}
{{- end }}
{{- $args = concat $args (list "--port" (include "standin.serverPort" .) "--served-model-name" .root.Values.modelArtifacts.name) ($c.args | default list) }}
args:
  {{- range $args }}
  - {{ . | quote }}
  {{- end }}
{{- else -}}
{{- fail (printf "%s container %q: modelCommand %q is not one of vllmServe, imageDefault, custom" .role ($c.name | default "vllm") $mode) -}}
{{- end -}}
{{- end -}}

{{- /* env the chart adds for the model artifacts. Context: dict root, c. */ -}}
{{- define "standin.modelEnv" -}}
{{- $uri := include "standin.uri" .root | fromYaml -}}
{{- $art := .root.Values.modelArtifacts -}}
{{- if .c.mountModelVolume }}
{{- if eq $uri.protocol "hf" }}
- name: HF_HOME
  value: {{ $art.mountPath | quote }}
{{- else if eq $uri.protocol "pvc+hf" }}
{{- $segments := splitList "/" $uri.rest }}
{{- /* Upstream hard-codes /model-cache here, whatever modelArtifacts.mountPath says. */}}
- name: HF_HUB_CACHE
  value: {{ printf "/model-cache/%s" (slice $segments 1 (sub (len $segments) 2) | join "/") | quote }}
{{- end }}
{{- end }}
{{- with $art.authSecretName }}
- name: HF_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: HF_TOKEN
{{- end }}
{{- end -}}

{{- /* One model container. Context: dict root, role, c. */ -}}
{{- define "standin.container" -}}
{{- $c := .c -}}
{{- $uri := include "standin.uri" .root | fromYaml -}}
- name: {{ $c.name | default "vllm" }}
  image: {{ required (printf "%s container: image is required" .role) $c.image }}
  {{- with $c.imagePullPolicy }}
  imagePullPolicy: {{ . }}
  {{- end }}
  {{- include "standin.command" . | trim | nindent 2 }}
  {{- $env := include "standin.modelEnv" . | trim }}
  {{- if or $c.env $env }}
  env:
    {{- with $c.env }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- with $env }}
    {{- . | nindent 4 }}
    {{- end }}
  {{- end }}
  {{- range $key := list "ports" "resources" "readinessProbe" "livenessProbe" "startupProbe" }}
  {{- with index $c $key }}
  {{ $key }}:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- end }}
  {{- if or $c.volumeMounts $c.mountModelVolume }}
  volumeMounts:
    {{- with $c.volumeMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- if $c.mountModelVolume }}
    - name: model-storage
      mountPath: {{ .root.Values.modelArtifacts.mountPath }}
      {{- if eq $uri.protocol "oci" }}
      readOnly: true
      {{- else if hasPrefix "pvc" $uri.protocol }}
      readOnly: {{ .root.Values.modelArtifacts.readOnly }}
      {{- end }}
    {{- end }}
  {{- end }}
{{- end -}}

{{- /* The routing proxy: a sidecar (init container with restartPolicy Always) of decode pods. */ -}}
{{- define "standin.routingProxy" -}}
{{- $routing := .Values.routing -}}
- name: routing-proxy
  image: {{ required "routing.proxy.image must be specified" $routing.proxy.image }}
  imagePullPolicy: {{ $routing.proxy.imagePullPolicy | default "Always" }}
  args:
    - --port={{ $routing.servicePort | default 8000 }}
    - --vllm-port={{ $routing.proxy.targetPort | default 8200 }}
    - --connector={{ $routing.proxy.connector | default "nixlv2" }}
  ports:
    - containerPort: {{ $routing.servicePort | default 8000 }}
  restartPolicy: Always
  securityContext:
    allowPrivilegeEscalation: false
    runAsNonRoot: true
{{- end -}}

{{- /* A decode or prefill Deployment. Context: dict root, role. */ -}}
{{- define "standin.deployment" -}}
{{- $root := .root -}}
{{- $role := .role -}}
{{- $spec := index $root.Values $role -}}
{{- $withProxy := and (eq $role "decode") $root.Values.routing.proxy.enabled -}}
{{- $mounts := false -}}
{{- range $spec.containers }}{{ if .mountModelVolume }}{{ $mounts = true }}{{ end }}{{ end -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ printf "%s-%s" (include "standin.fullname" $root) $role }}
  labels:
    {{- include "standin.labels" $root | nindent 4 }}
spec:
  replicas: {{ ternary $spec.replicas 1 (hasKey $spec "replicas") }}
  selector:
    matchLabels:
      {{- include "standin.podLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "standin.podLabels" . | nindent 8 }}
    spec:
      serviceAccountName: {{ include "standin.serviceAccountName" $root }}
      {{- with $spec.extraConfig }}
      {{- toYaml . | nindent 6 }}
      {{- end }}
      {{- with $spec.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $spec.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $spec.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if or $withProxy $spec.initContainers }}
      initContainers:
        {{- if $withProxy }}
        {{- include "standin.routingProxy" $root | nindent 8 }}
        {{- end }}
        {{- with $spec.initContainers }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- end }}
      containers:
        {{- range required (printf "%s.containers needs at least one container" $role) $spec.containers }}
        {{- include "standin.container" (dict "root" $root "role" $role "c" .) | nindent 8 }}
        {{- end }}
      {{- if or $spec.volumes $mounts }}
      volumes:
        {{- with $spec.volumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        {{- if $mounts }}
        {{- include "standin.modelVolume" $root | nindent 8 }}
        {{- end }}
      {{- end }}
{{- end -}}
