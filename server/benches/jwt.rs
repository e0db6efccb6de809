//! What a JWT costs the server (AUTH.md §2, issue 20's performance note):
//!
//! - `cold/<alg>`: verifying a token nobody presented before — header,
//!   key choice, signature (ring through jsonwebtoken) and every claim rule —
//!   for each algorithm served: RS256, PS256, ES256, ES384, EdDSA;
//! - `lookup/static`: what a static token's request pays to be
//!   authenticated (SHA-256 of the token, one hash-map probe, the caller
//!   copied), and `lookup/jwt_cached`: what a JWT's request pays once it is
//!   cached (its SHA-256, the static miss, the verified-token cache's probe
//!   and expiry check with the clock read, the static-caller check, the
//!   caller copied).
//!
//! RSA keys come from `openssl genrsa` (2048 bits; the bench skips RSA
//! without it), EC and Ed25519 keys from ring.

use std::collections::{HashMap, HashSet};
use std::hint::black_box;
use std::process::Command;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chopin_mcp::{Config, Endpoint, Granted};
use chopin_mcp_server::oauth;
use chopin_mcp_server::oauth::jwks::KeySet;
use chopin_mcp_server::oauth::jwt::{self, Rules};
use chopin_mcp_server::oauth::verified::{Entry, Verified};
use criterion::{Criterion, criterion_group, criterion_main};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::rand::SystemRandom;
use ring::signature::{self, KeyPair};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const ISSUER: &str = "https://login.example.com";
const RESOURCE: &str = "https://mcp.example.com/mcp";

/// A signing key and its public JWK.
struct Signer {
    alg: Algorithm,
    name: &'static str,
    key: EncodingKey,
    jwk: Value,
}

fn rsa(dir: &std::path::Path) -> Option<(EncodingKey, Value)> {
    let pem = dir.join("rsa.pem");
    let der = dir.join("rsa.der");
    let ok = |c: &mut Command| c.status().is_ok_and(|s| s.success());
    if !ok(Command::new("openssl")
        .args(["genrsa", "-traditional", "-out"])
        .arg(&pem)
        .arg("2048")
        .stderr(std::process::Stdio::null()))
    {
        return None;
    }
    if !ok(Command::new("openssl")
        .args(["rsa", "-traditional", "-outform", "DER", "-in"])
        .arg(&pem)
        .arg("-out")
        .arg(&der)
        .stderr(std::process::Stdio::null()))
    {
        return None;
    }
    let modulus = Command::new("openssl")
        .args(["rsa", "-noout", "-modulus", "-in"])
        .arg(&pem)
        .output()
        .ok()?;
    let hex = String::from_utf8_lossy(&modulus.stdout);
    let hex = hex.trim().strip_prefix("Modulus=")?;
    let n: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let der = std::fs::read(&der).ok()?;
    let jwk = json!({"kty": "RSA", "n": URL_SAFE_NO_PAD.encode(n), "e": "AQAB", "use": "sig"});
    Some((EncodingKey::from_rsa_der(&der), jwk))
}

fn signers() -> Vec<Signer> {
    let rng = SystemRandom::new();
    let dir = std::env::temp_dir().join(format!("chopin-jwt-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut signers = Vec::new();
    if let Some((key, jwk)) = rsa(&dir) {
        for (alg, name) in [(Algorithm::RS256, "RS256"), (Algorithm::PS256, "PS256")] {
            signers.push(Signer {
                alg,
                name,
                key: key.clone(),
                jwk: jwk.clone(),
            });
        }
    } else {
        eprintln!("no openssl: RS256 and PS256 skipped");
    }
    for (alg, name, ring_alg, curve, size) in [
        (
            Algorithm::ES256,
            "ES256",
            &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            "P-256",
            32,
        ),
        (
            Algorithm::ES384,
            "ES384",
            &signature::ECDSA_P384_SHA384_FIXED_SIGNING,
            "P-384",
            48,
        ),
    ] {
        let pkcs8 = signature::EcdsaKeyPair::generate_pkcs8(ring_alg, &rng).unwrap();
        let pair = signature::EcdsaKeyPair::from_pkcs8(ring_alg, pkcs8.as_ref(), &rng).unwrap();
        let point = pair.public_key().as_ref();
        let (x, y) = (&point[1..1 + size], &point[1 + size..]);
        let jwk = json!({"kty": "EC", "crv": curve, "x": URL_SAFE_NO_PAD.encode(x), "y": URL_SAFE_NO_PAD.encode(y)});
        signers.push(Signer {
            alg,
            name,
            key: EncodingKey::from_ec_der(pkcs8.as_ref()),
            jwk,
        });
    }
    let pkcs8 = signature::Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
    let pair = signature::Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
    let jwk = json!({"kty": "OKP", "crv": "Ed25519", "x": URL_SAFE_NO_PAD.encode(pair.public_key().as_ref())});
    signers.push(Signer {
        alg: Algorithm::EdDSA,
        name: "EdDSA",
        key: EncodingKey::from_ed_der(pkcs8.as_ref()),
        jwk,
    });
    let _ = std::fs::remove_dir_all(&dir);
    signers
}

/// A token like an authorization server's: RFC 9068 claims, about 600 bytes
/// signed with RSA.
fn token(signer: &Signer, kid: &str) -> String {
    let now = oauth::now();
    let claims = json!({
        "iss": ISSUER, "aud": RESOURCE, "sub": "6f1c2a9e-0d7b-4a5e-9a51-2b8d3f4c5e6a",
        "scope": "chopin:read chopin:create chopin:write", "client_id": "Vb6cZ2xq9kEoLm3nR8tYw",
        "iat": now, "exp": now + 3600, "jti": "Yk8m2Qp7Rz4Lw9Xn3Vb6cZ2xq9kEoLm3nR8tYw",
    });
    let mut header = Header::new(signer.alg);
    header.typ = Some("at+jwt".to_owned());
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, &claims, &signer.key).unwrap()
}

fn rules() -> Rules {
    Rules {
        issuer: ISSUER.to_owned(),
        audiences: vec![RESOURCE.to_owned()],
        caller_claim: "sub".to_owned(),
        scopes: Endpoint::new(Config::new()).unwrap().scopes().clone(),
    }
}

fn benches(c: &mut Criterion) {
    let signers = signers();
    let keys: Vec<Value> = signers
        .iter()
        .map(|s| {
            let mut jwk = s.jwk.clone();
            jwk["kid"] = s.name.into();
            jwk
        })
        .collect();
    let set = KeySet::parse(json!({ "keys": keys }).to_string().as_bytes()).unwrap();
    let rules = rules();
    let mut cold = c.benchmark_group("cold");
    for signer in &signers {
        let token = token(signer, signer.name);
        let now = oauth::now();
        assert!(
            jwt::verify(&token, &set, &rules, now).is_ok(),
            "{}",
            signer.name
        );
        cold.bench_function(signer.name, |b| {
            b.iter(|| jwt::verify(black_box(&token), &set, &rules, now).unwrap())
        });
    }
    cold.finish();

    // The lookups, as Host::authenticate and OAuth::judge do them.
    let static_token = "efc5d6a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b9263";
    let mut table: HashMap<[u8; 32], String> = HashMap::new();
    table.insert(Sha256::digest(static_token).into(), "octocat".to_owned());
    let callers: HashSet<String> = table.values().cloned().collect();
    let jwt_token = token(&signers[0], signers[0].name);
    let verified = Verified::default();
    let digest: [u8; 32] = Sha256::digest(&jwt_token).into();
    let verdict = jwt::verify(&jwt_token, &set, &rules, oauth::now()).unwrap();
    verified.insert(
        digest,
        Entry {
            caller: verdict.caller.into(),
            grant: verdict.grant,
            exp: verdict.exp,
            key: verdict.key,
        },
        oauth::now(),
    );
    println!(
        "token lengths: static {} bytes, JWT {} bytes",
        static_token.len(),
        jwt_token.len()
    );
    let mut lookup = c.benchmark_group("lookup");
    lookup.bench_function("static", |b| {
        b.iter(|| {
            let digest: [u8; 32] = Sha256::digest(black_box(static_token)).into();
            table.get(&digest).cloned().unwrap()
        })
    });
    lookup.bench_function("jwt_cached", |b| {
        b.iter(|| {
            let digest: [u8; 32] = Sha256::digest(black_box(&jwt_token)).into();
            assert!(!table.contains_key(&digest));
            let (caller, grant, _) = verified.get(&digest, oauth::now()).unwrap();
            assert!(!callers.contains(&*caller) && grant == Granted::ALL);
            caller
        })
    });
    lookup.finish();
}

criterion_group!(jwt_benches, benches);
criterion_main!(jwt_benches);
