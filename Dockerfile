# rates-xl serve as a team server (docs/team-server.md). Build from the repository's root:
#   docker build -t rates-xl-serve .
# Run it with the company certificate mounted at /certs and the service key as a secret:
#   docker run -p 443:8766 -v /etc/rates-xl/certs:/certs:ro -v rates-xl-users:/home/rates/.config \
#     -e RATES_API_KEY -e RATES_SERVE_PUBLIC_URL=https://rates.corp.example \
#     -e RATES_SERVE_OIDC_ISSUER=https://login.microsoftonline.com/<tenant id>/v2.0 \
#     -e RATES_SERVE_OIDC_CLIENT_ID=<application id> -e RATES_TEAM_URL=redis://cache:6379/0 rates-xl-serve
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY . /src
RUN pip install "/src[officejs,team]" && rm -rf /src

# No root at run time; its config folder holds the per-user tokens (serve users add).
RUN useradd --create-home --uid 10001 rates
USER rates
WORKDIR /home/rates

ENV RATES_SERVE_PUBLIC_URL=https://localhost:8766 RATES_SERVE_CERT=/certs/tls.crt RATES_SERVE_KEY=/certs/tls.key
EXPOSE 8766
# /health needs no sign-in; the certificate names the public host, not 127.0.0.1, hence no verification here.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["python", "-c", "import ssl, urllib.request; urllib.request.urlopen('https://127.0.0.1:8766/health', context=ssl._create_unverified_context(), timeout=4)"]
CMD ["sh", "-c", "exec rates-xl serve --host 0.0.0.0 --port 8766 --public-url \"$RATES_SERVE_PUBLIC_URL\" --cert \"$RATES_SERVE_CERT\" --key \"$RATES_SERVE_KEY\""]
