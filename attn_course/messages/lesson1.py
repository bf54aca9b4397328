"""Lesson 1's messages: hints for scores, softmax and the Attention module, its answers, table and figures."""

MESSAGES = {
    "hint_kq_order": {
        "ja": "K @ Qᵀ を計算していませんか。行がクエリ、列がキーになるように Q @ Kᵀ の順にします。",
        "ko": "K @ Qᵀ를 계산한 것 같습니다. 행이 쿼리, 열이 키가 되도록 Q @ Kᵀ 순서로 곱해야 합니다.",
    },
    "hint_scale_mul": {
        "ja": "√d_k を掛けていませんか。掛けるのではなく割ります。",
        "ko": "√d_k를 곱한 것 같습니다. 곱하는 것이 아니라 나눠야 합니다.",
    },
    "hint_softmax_shift_axis": {
        "ja": "引く最大値が行ごとのものになっていません。各行の最大値 scores.amax(dim=-1, keepdim=True) を引きます（和をとる軸と同じ軸です）。",
        "ko": "빼는 최댓값이 행별 최댓값이 아닙니다. 각 행의 최댓값 scores.amax(dim=-1, keepdim=True)를 뺍니다(합을 구하는 축과 같은 축입니다).",
    },
    "hint_softmax_negated": {
        "ja": "引き算が逆になっていませんか。scores - 最大値 です（最大値 - scores では、大きいスコアほど重みが小さくなります）。",
        "ko": "뺄셈이 거꾸로 된 것 같습니다. scores - 최댓값입니다(최댓값 - scores로 하면 점수가 클수록 가중치가 작아집니다).",
    },
    "hint_softmax_no_exp": {
        "ja": "exp をとらずに和で割っていませんか。ソフトマックスは exp(s - 最大値) を、その行の和で割ります。",
        "ko": "exp를 취하지 않고 합으로 나눈 것 같습니다. 소프트맥스는 exp(s - 최댓값)을 그 행의 합으로 나눕니다.",
    },
    "hint_softmax_flat": {
        "ja": "どの行の重みもすべて同じ値（1/T_k）になっています。exp に入れる値が、行の中でみな同じになっていませんか（scores - scores など）。各行から引くのは、その行の最大値 scores.amax(dim=-1, keepdim=True) です。",
        "ko": "어느 행에서든 가중치가 모두 같은 값(1/T_k)이 되었습니다. exp에 넣는 값이 행 안에서 모두 같아진 것 같습니다(scores - scores처럼). 각 행에서 빼야 하는 것은 그 행의 최댓값 scores.amax(dim=-1, keepdim=True)입니다.",
    },
    "hint_qk_not_projected": {
        "ja": "Attention の forward では、Q = self.W_q(x)、K = self.W_k(x) のように両方を射影してから attention に渡します（射影したあとの最後の軸は、どちらも d_k です）。片方を x のまま（最後の軸が埋め込み次元 E のまま）渡していませんか。",
        "ko": "Attention 안에서는 Q = self.W_q(x), K = self.W_k(x)처럼 둘 다 투영한 뒤 attention에 넘깁니다(투영한 뒤의 마지막 축은 둘 다 d_k입니다). 한쪽이 x 그대로(마지막 축이 임베딩 차원 E 그대로) 남아 있는 것 같습니다.",
    },
    "hint_v_not_projected": {
        "ja": "W_o に入ったテンソルの最後の軸が、埋め込み次元 E のままです（W_o が受け取るのは、最後の軸が d_k のテンソルです）。V = self.W_v(x) と射影せずに、x をそのまま V にしていませんか。",
        "ko": "W_o에 넣은 텐서의 마지막 축이 임베딩 차원 E 그대로입니다(W_o는 마지막 축이 d_k인 텐서를 받습니다). V = self.W_v(x)로 투영하지 않고 x를 그대로 V로 쓴 것 같습니다.",
    },
    "hint_attention_pair_order": {
        "ja": "W_o に入ったテンソルの最後の軸が d_k ではありません。attention は (出力, 重み) の順に返すので、y, weights = attention(Q, K, V) と受け取り、W_o には1つ目の戻り値 y を渡します。",
        "ko": "W_o에 넣은 텐서의 마지막 축이 d_k가 아닙니다. attention은 (출력, 가중치) 순서로 반환하므로 y, weights = attention(Q, K, V)로 받고, W_o에는 첫 번째 반환값 y를 넘기세요.",
    },
    "hint_kv_swapped": {
        "ja": "K と V が入れ替わっていませんか。K = W_k(x)、V = W_v(x) で、重みは Q と K のスコアから求め、V にかけます（attention(Q, K, V) の順）。",
        "ko": "K와 V가 바뀐 것 같습니다. K = W_k(x), V = W_v(x)이고, 가중치는 Q와 K의 점수로 구해 V에 곱합니다(attention(Q, K, V) 순서).",
    },
    "hint_scale_wrong_dim": {
        "ja": "割る数に別の軸の大きさを使っていませんか。d_k は Q の最後の軸の大きさ Q.size(-1) です（系列長ではありません）。",
        "ko": "나누는 값에 다른 축의 크기를 쓴 것 같습니다. d_k는 Q의 마지막 축 크기 Q.size(-1)입니다(시퀀스 길이가 아닙니다).",
    },
    "hint_softmax_overflow": {
        "ja": "大きなスコア（例：800 前後）を入れると NaN や inf になりました。exp をとる前に各行の最大値を引くと、結果を変えずにオーバーフローを防げます。",
        "ko": "큰 점수(예: 800 안팎)를 넣었더니 NaN이나 inf가 나왔습니다. exp를 취하기 전에 각 행의 최댓값을 빼면 결과는 그대로이면서 오버플로를 막을 수 있습니다.",
    },
    "hint_weights_v_order": {
        "ja": "出力は 重み @ V です（(…, T_q, T_k) @ (…, T_k, d_v) → (…, T_q, d_v)）。",
        "ko": "출력은 가중치 @ V입니다((…, T_q, T_k) @ (…, T_k, d_v) → (…, T_q, d_v)).",
    },
    "hint_returns_scores": {
        "ja": "2つ目の戻り値はソフトマックス後の重みにしてください（ソフトマックス前のスコアになっているようです）。",
        "ko": "두 번째 반환값은 소프트맥스를 거친 가중치여야 합니다(소프트맥스 전의 점수를 반환한 것 같습니다).",
    },
    "hint_wrong_projection": {
        "ja": "Q, K, V を作る層が入れ替わっていませんか（Q は W_q、K は W_k、V は W_v から）。",
        "ko": "Q, K, V를 만드는 층이 뒤바뀐 것 같습니다. Q는 W_q, K는 W_k, V는 W_v로 만듭니다.",
    },
    "answer_not_theory": {
        "ja": "{name} = {got} は理論値ではありません（上の表で測った値は {measured:.3g}）。",
        "ko": "{name} = {got}: 이론값이 아닙니다(위 표에서 잰 값: {measured:.3g}).",
    },
    "hint_var_theory": {
        "ja": "q·k は d_k 個の積 q_i k_i の和で、各積の分散は 1 です。独立な項の和の分散は足し算なので、割らないスコアの分散は d_k です。√d_k で割ると分散は 1/d_k 倍になります。測定値ではなく、この理論値を答えてください。",
        "ko": "q·k는 d_k개의 곱 q_i k_i의 합이고, 각 곱의 분산은 1입니다. 독립인 항의 합의 분산은 더해지므로 나누지 않은 점수의 분산은 d_k입니다. √d_k로 나누면 분산은 1/d_k배가 됩니다. 잰 값이 아니라 이 이론값을 답하세요.",
    },
    "answer_std_not_var": {
        "ja": "{name} = {got} は標準偏差に見えます。聞いているのは分散（標準偏差の2乗）です。",
        "ko": "{name} = {got}: 표준편차로 보입니다. 묻는 것은 분산(표준편차의 제곱)입니다.",
    },
    "fig_variance_title": {
        "ja": "q·k の分散（d_k ごと）",
        "ko": "q·k의 분산(d_k별)",
    },
    "fig_maxweight_title": {
        "ja": "ソフトマックスの最大の重み（平均）",
        "ko": "소프트맥스 최대 가중치(평균)",
    },
    "fig_with_scaling": {"ja": "√d_k で割る", "ko": "√d_k로 나눔"},
    "fig_without_scaling": {"ja": "割らない", "ko": "나누지 않음"},
    "table_dk": {"ja": "d_k", "ko": "d_k"},
    "table_var_raw": {"ja": "分散（割らない）", "ko": "분산(나누지 않음)"},
    "table_var_scaled": {"ja": "分散（√d_k で割る）", "ko": "분산(√d_k로 나눔)"},
    "table_max_raw": {"ja": "最大の重み（割らない）", "ko": "최대 가중치(나누지 않음)"},
    "table_max_scaled": {"ja": "最大の重み（√d_k で割る）", "ko": "최대 가중치(√d_k로 나눔)"},
}
