"""Pod-to-pod traffic through a ClusterIP Service, by IP and by cluster DNS name."""


def test_pod_reaches_pod_through_clusterip_service(kube, env, namespace, versions):
    image = f"docker.io/library/busybox:{versions['BUSYBOX_TAG']}"
    server = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "server", "labels": {"app": "server"}},
        "spec": {"containers": [{
            "name": "httpd", "image": image,
            "command": ["sh", "-c", ("mkdir -p /www && echo hello-from-server > /www/index.html"
                                     " && exec httpd -f -p 8080 -h /www")],
            "ports": [{"containerPort": 8080}],
            "readinessProbe": {"tcpSocket": {"port": 8080}, "periodSeconds": 1},
        }]},
    }
    service = {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "server"},
        "spec": {"type": "ClusterIP", "selector": {"app": "server"},
                 "ports": [{"port": 80, "targetPort": 8080}]},
    }
    kube.apply(server, service, namespace=namespace)
    kube.wait_for("server pod ready", lambda: any(
        c["type"] == "Ready" and c["status"] == "True"
        for c in kube.get("pod", "server", namespace)["status"].get("conditions", [])))
    cluster_ip = kube.get("service", "server", namespace)["spec"]["clusterIP"]
    dns_name = f"server.{namespace}.svc.cluster.local"
    client = {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "client"},
        "spec": {"restartPolicy": "Never", "containers": [{
            "name": "client", "image": image,
            # Debian's static busybox wget crashes on -T: bound it with timeout instead.
            "command": ["sh", "-c", " && ".join(
                [f"timeout 10 wget -q -O - http://{host}/"
                 for host in (cluster_ip, dns_name, "server")]
                + ["nslookup harbor.harbor.svc.cluster.local"])],
        }]},
    }
    kube.apply(client, namespace=namespace)
    kube.wait_pod_succeeded("client", namespace, timeout=90)
    logs = kube.logs(namespace, "client")
    assert logs.count("hello-from-server") == 3, logs
    assert env["AIPS_LAB_HOST_IP"] in logs, logs
