"""Certificates, kubeconfigs, config files and command lines of the cluster's components."""

import json

from . import pki
from .config import (
    BRIDGE,
    CLUSTER_DOMAIN,
    HARBOR_HOST,
    HARBOR_USER,
    HOST_IP,
    KUBERNETES_SVC_IP,
    MIRRORED_REGISTRIES,
    POD_CIDR,
    SERVICE_CIDR,
    node_name,
)
from .files import write_if_changed

APISERVER_URL = f"https://{HOST_IP}:6443"
ETCD_URL = "http://127.0.0.1:2379"

# kubeconfig name -> (certificate CN, organisation)
CLIENTS = {
    "admin": ("lab-admin", "system:masters"),
    "controller-manager": ("system:kube-controller-manager", ""),
    "scheduler": ("system:kube-scheduler", ""),
    "kube-proxy": ("system:kube-proxy", ""),
    "coredns": ("lab:coredns", ""),
    "local-path-provisioner": ("lab:local-path-provisioner", ""),
}


def kubeconfig(paths, name, cn, org):
    crt, key = pki.ensure_cert(paths.pki, f"client-{name}", cn, org=org)
    config = {
        "apiVersion": "v1", "kind": "Config", "current-context": "lab",
        "clusters": [{"name": "lab", "cluster": {"server": APISERVER_URL,
                                                 "certificate-authority": str(paths.ca_cert)}}],
        "users": [{"name": name, "user": {"client-certificate": str(crt),
                                          "client-key": str(key)}}],
        "contexts": [{"name": "lab", "context": {"cluster": "lab", "user": name}}],
    }
    path = paths.etc / f"{name}.kubeconfig"
    write_if_changed(path, json.dumps(config, indent=2), 0o600)
    return path


def write_pki(paths):
    pki.ensure_ca(paths.pki)
    pki.ensure_service_account_keys(paths.pki)
    svc_names = ["kubernetes", "kubernetes.default", "kubernetes.default.svc",
                 f"kubernetes.default.svc.{CLUSTER_DOMAIN}", "localhost"]
    pki.ensure_cert(paths.pki, "apiserver", "kube-apiserver", dns=svc_names,
                    ips=(KUBERNETES_SVC_IP, HOST_IP, "127.0.0.1"))
    paths.etc.mkdir(parents=True, exist_ok=True)
    pki.ensure_cert(paths.pki, "client-apiserver-kubelet-client", "kube-apiserver-kubelet-client",
                    org="system:masters")
    for name, (cn, org) in CLIENTS.items():
        kubeconfig(paths, name, cn, org)
    node = node_name()
    kubeconfig(paths, "kubelet", f"system:node:{node}", "system:nodes")
    pki.ensure_cert(paths.pki, "kubelet-serving", node, dns=(node,), ips=(HOST_IP,))


def etcd_argv(paths, bin_dir):
    peer = "http://127.0.0.1:2380"
    return [bin_dir / "etcd", "--name", "lab", "--data-dir", paths.data / "etcd",
            "--listen-client-urls", ETCD_URL, "--advertise-client-urls", ETCD_URL,
            "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
            "--initial-cluster", f"lab={peer}", "--unsafe-no-fsync",
            "--quota-backend-bytes", str(2 * 1024**3)]


def apiserver_argv(paths, bin_dir):
    p = paths.pki
    return [bin_dir / "kube-apiserver",
            "--etcd-servers", ETCD_URL,
            "--bind-address", HOST_IP, "--advertise-address", HOST_IP, "--secure-port", "6443",
            "--tls-cert-file", p / "apiserver.crt", "--tls-private-key-file", p / "apiserver.key",
            "--client-ca-file", p / "ca.crt",
            "--kubelet-client-certificate", p / "client-apiserver-kubelet-client.crt",
            "--kubelet-client-key", p / "client-apiserver-kubelet-client.key",
            "--kubelet-certificate-authority", p / "ca.crt",
            "--kubelet-preferred-address-types", "InternalIP",
            "--authorization-mode", "Node,RBAC",
            "--enable-admission-plugins", "NodeRestriction",
            "--allow-privileged=true",
            "--service-cluster-ip-range", SERVICE_CIDR,
            "--service-account-issuer", f"https://kubernetes.default.svc.{CLUSTER_DOMAIN}",
            "--service-account-key-file", p / "sa.pub",
            "--service-account-signing-key-file", p / "sa.key",
            "--profiling=false"]


def controller_manager_argv(paths, bin_dir):
    p = paths.pki
    kc = paths.etc / "controller-manager.kubeconfig"
    return [bin_dir / "kube-controller-manager", "--kubeconfig", kc,
            "--authentication-kubeconfig", kc, "--authorization-kubeconfig", kc,
            "--bind-address", "127.0.0.1", "--leader-elect=false",
            "--root-ca-file", p / "ca.crt",
            "--service-account-private-key-file", p / "sa.key",
            "--use-service-account-credentials=true",
            "--cluster-signing-cert-file", p / "ca.crt", "--cluster-signing-key-file", p / "ca.key",
            "--service-cluster-ip-range", SERVICE_CIDR, "--profiling=false"]


def scheduler_argv(paths, bin_dir):
    kc = paths.etc / "scheduler.kubeconfig"
    return [bin_dir / "kube-scheduler", "--kubeconfig", kc,
            "--authentication-kubeconfig", kc, "--authorization-kubeconfig", kc,
            "--bind-address", "127.0.0.1", "--leader-elect=false", "--profiling=false"]


def containerd_socket(paths):
    return paths.run / "containerd" / "containerd.sock"


def write_containerd_config(paths, token, sandbox_image):
    """containerd 1.6 with the CRI plugin, cgroupfs and a hosts.toml mirror per registry."""
    certs_d = paths.etc / "containerd" / "certs.d"
    ca = paths.ca_cert
    _hosts_toml(certs_d / HARBOR_HOST, f"https://{HARBOR_HOST}", f"https://{HARBOR_HOST}", ca)
    for registry in MIRRORED_REGISTRIES:
        _hosts_toml(certs_d / registry, f"https://{registry}", f"https://{HOST_IP}", ca)
    cri = 'plugins."io.containerd.grpc.v1.cri"'
    sock = containerd_socket(paths)
    text = f"""version = 2
root = "{paths.data / 'containerd'}"
state = "{paths.run / 'containerd-state'}"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = "{sock}"

[ttrpc]
  address = "{sock}.ttrpc"

[plugins."io.containerd.internal.v1.opt"]
  path = "{paths.data / 'containerd-opt'}"

[{cri}]
  sandbox_image = "{sandbox_image}"
  stream_server_address = "127.0.0.1"
  netns_mounts_under_state_dir = true
  # This machine lacks CAP_SYS_RESOURCE: a negative oom_score_adj (the sandbox's -998, a
  # Guaranteed pod's -997) makes runc fail, so never go below containerd's own score.
  restrict_oom_score_adj = true

[{cri}.containerd]
  snapshotter = "overlayfs"
  default_runtime_name = "runc"

[{cri}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[{cri}.containerd.runtimes.runc.options]
  SystemdCgroup = false

[{cri}.cni]
  bin_dir = "/usr/lib/cni"
  conf_dir = "{paths.etc / 'cni'}"

[{cri}.registry]
  config_path = "{certs_d}"

# Node-level credentials only for the mirror address that serves cloud image names: a pod
# pulling a harbor.harbor.svc.cluster.local image needs its own imagePullSecret.
[{cri}.registry.configs."{HOST_IP}".auth]
  username = "{HARBOR_USER}"
  password = "{token}"
"""
    path = paths.etc / "containerd.toml"
    write_if_changed(path, text, 0o600)
    _write_cni_config(paths)
    return path


def _hosts_toml(directory, server, endpoint, ca):
    directory.mkdir(parents=True, exist_ok=True)
    write_if_changed(
        directory / "hosts.toml",
        f'server = "{server}"\n\n[host."{endpoint}"]\n'
        f'  capabilities = ["pull", "resolve"]\n  ca = "{ca}"\n')


def _write_cni_config(paths):
    conf = {
        "cniVersion": "1.0.0", "name": "aips-lab",
        "plugins": [
            {"type": "bridge", "bridge": BRIDGE, "isGateway": True, "ipMasq": False,
             "hairpinMode": True,
             "ipam": {"type": "host-local", "dataDir": str(paths.data / "cni-ipam"),
                      "ranges": [[{"subnet": POD_CIDR, "gateway": HOST_IP}]],
                      "routes": [{"dst": "0.0.0.0/0"}]}},
            {"type": "portmap", "capabilities": {"portMappings": True}},
        ],
    }
    cni_dir = paths.etc / "cni"
    cni_dir.mkdir(parents=True, exist_ok=True)
    write_if_changed(cni_dir / "10-aips-lab.conflist", json.dumps(conf, indent=2))


def containerd_argv(paths):
    return ["/usr/bin/containerd", "--config", paths.etc / "containerd.toml"]


def write_kubelet_config(paths):
    resolv = paths.etc / "pod-resolv.conf"
    write_if_changed(resolv, f"nameserver {HOST_IP}\n")
    node = node_name()
    config = {
        "apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
        "address": HOST_IP, "port": 10250,
        "authentication": {"x509": {"clientCAFile": str(paths.ca_cert)},
                           "webhook": {"enabled": True}, "anonymous": {"enabled": False}},
        "authorization": {"mode": "Webhook"},
        "tlsCertFile": str(paths.pki / "kubelet-serving.crt"),
        "tlsPrivateKeyFile": str(paths.pki / "kubelet-serving.key"),
        "cgroupDriver": "cgroupfs",
        "containerRuntimeEndpoint": f"unix://{containerd_socket(paths)}",
        "clusterDomain": CLUSTER_DOMAIN, "clusterDNS": [HOST_IP],
        "resolvConf": str(resolv),
        "failSwapOn": False,
        "evictionHard": {"memory.available": "100Mi", "nodefs.available": "1%",
                         "imagefs.available": "1%", "nodefs.inodesFree": "1%"},
        "imageGCHighThresholdPercent": 99, "imageGCLowThresholdPercent": 98,
        "serializeImagePulls": False,
        "staticPodPath": str(paths.etc / "manifests"),
        "podCIDR": POD_CIDR,
    }
    (paths.etc / "manifests").mkdir(exist_ok=True)
    path = paths.etc / "kubelet.json"
    write_if_changed(path, json.dumps(config, indent=2))
    return path, node


def kubelet_argv(paths, bin_dir):
    config, node = write_kubelet_config(paths)
    return [bin_dir / "kubelet", "--config", config,
            "--kubeconfig", paths.etc / "kubelet.kubeconfig",
            "--root-dir", paths.data / "kubelet", "--node-ip", HOST_IP,
            "--hostname-override", node]


def kube_proxy_argv(paths, bin_dir):
    config = {
        "apiVersion": "kubeproxy.config.k8s.io/v1alpha1", "kind": "KubeProxyConfiguration",
        "mode": "iptables", "clusterCIDR": POD_CIDR, "hostnameOverride": node_name(),
        "clientConnection": {"kubeconfig": str(paths.etc / "kube-proxy.kubeconfig")},
        "bindAddress": HOST_IP, "metricsBindAddress": "127.0.0.1:10249",
        "healthzBindAddress": "127.0.0.1:10256",
        "conntrack": {"maxPerCore": 0},
    }
    path = paths.etc / "kube-proxy.json"
    write_if_changed(path, json.dumps(config, indent=2))
    return [bin_dir / "kube-proxy", "--config", path]


def coredns_argv(paths, bin_dir):
    """CoreDNS on the host serves cluster.local from the API, plus the Harbor name."""
    kc = paths.etc / "coredns.kubeconfig"
    corefile = paths.etc / "Corefile"
    write_if_changed(corefile, f"""{CLUSTER_DOMAIN}:53 in-addr.arpa:53 ip6.arpa:53 {{
    bind {HOST_IP}
    errors
    hosts {{
        {HOST_IP} {HARBOR_HOST}
        fallthrough
    }}
    kubernetes {CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {{
        kubeconfig {kc}
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }}
    cache 5
    reload
}}
""")
    return [bin_dir / "coredns", "-conf", corefile, "-dns.port", "53"]


def local_path_provisioner_argv(paths, bin_dir, helper_image):
    config = {"nodePathMap": [{"node": "DEFAULT_PATH_FOR_NON_LISTED_NODES",
                               "paths": [str(paths.data / "local-path")]}]}
    cfg = paths.etc / "local-path-config.json"
    write_if_changed(cfg, json.dumps(config))
    helper = paths.etc / "local-path-helper-pod.json"
    write_if_changed(helper, json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "helper-pod"},
        "spec": {"containers": [{"name": "helper-pod", "image": helper_image,
                                 "imagePullPolicy": "IfNotPresent"}]}}))
    return [bin_dir / "local-path-provisioner", "start",
            "--kubeconfig", paths.etc / "local-path-provisioner.kubeconfig",
            "--config", cfg, "--helper-pod-file", helper, "--helper-image", helper_image,
            "--namespace", "local-path-storage",
            "--service-account-name", "local-path-provisioner-service-account"]
